/**
 * Runs an engine's firmware keys sync in the background (docs/DECISIONS.md, "Firmware in effect, kept"): a reader
 * that finds the kept keys behind answers from the rollouts device by device and kicks this; one sync at a time per
 * connection, once more when kicked meanwhile. A failed sync is retried at the next kick (readers stay correct
 * without it); a failure is logged at most once a minute.
 */
export interface KeysKeeper {
  kick(product: string): void;
  /** Stops kicks and resolves when no sync runs (before the connection closes). */
  close(): Promise<void>;
}

const LOG_EVERY_MS = 60_000;

/** `sync` stops between slices once `stopped()` is true (the store is closing). */
export function keysKeeper(sync: (product: string, stopped: () => boolean) => Promise<boolean>): KeysKeeper {
  let running: Promise<void> | null = null;
  let again: string | null = null;
  let closed = false;
  let loggedAt = 0;
  const run = (product: string) => {
    running = (async () => {
      try {
        await sync(product, () => closed);
      } catch (err) {
        if (!closed && Date.now() - loggedAt > LOG_EVERY_MS) {
          loggedAt = Date.now();
          console.error(`WARNING: the firmware keys sync failed (retried at the next read): ${String(err)}`);
        }
      } finally {
        running = null;
        const next = again;
        again = null;
        if (next !== null && !closed) run(next);
      }
    })();
  };
  return {
    kick(product) {
      if (closed) return;
      if (running) {
        again = product;
        return;
      }
      // On a later turn: never inside the reader's own transaction.
      running = new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        running = null;
        if (!closed) run(product);
      });
    },
    async close() {
      closed = true;
      while (running) await running;
    },
  };
}
