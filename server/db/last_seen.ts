/**
 * A device's last-seen time, coalesced (docs/DECISIONS.md, "Polls that change nothing cost no write"): a check-in or
 * DDI poll that changes nothing notes its time here instead of writing its row; the latest time per device is written
 * in one batch at most FLUSH_MS after the first note (so a crash loses at most that window of last-seen times, never a
 * change of state: those are written at once, in their own transaction). One flush at a time; a failed flush keeps
 * its times (unless newer ones came) for the next one. close() flushes what is left.
 */
export interface SeenBatch {
  /** Records that `deviceId` was seen at `at` (ISO text); written within FLUSH_MS. */
  note(deviceId: string, at: string): void;
  /** Writes what is noted now; resolves when it is written (or the write failed, then kept for the next flush). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (once; a failure is logged). */
  close(): Promise<void>;
}

/** How long a noted time may wait: the window a crash can lose. */
export const FLUSH_MS = 500;
const LOG_EVERY_MS = 60_000;

/**
 * `write` records each device's time unless its stored one is later (rows of deleted devices simply match none); it
 * answers the times it left for the next flush (rows another transaction held: it never waits for one).
 */
export function seenBatch(
  write: (seen: ReadonlyMap<string, string>) => Promise<ReadonlyMap<string, string> | void>,
): SeenBatch {
  let pending = new Map<string, string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let closed = false;
  let loggedAt = 0;

  const schedule = () => {
    if (timer === undefined && !closed && pending.size > 0) timer = setTimeout(tick, FLUSH_MS);
  };
  const tick = () => {
    timer = undefined;
    void flush();
  };

  async function once(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    const keep = (times: ReadonlyMap<string, string>) => {
      for (const [id, at] of times) {
        const later = pending.get(id);
        if (later === undefined || later < at) pending.set(id, at);
      }
    };
    try {
      const left = await write(batch);
      if (left) keep(left);
    } catch (err) {
      keep(batch);
      if (Date.now() - loggedAt > LOG_EVERY_MS) {
        loggedAt = Date.now();
        console.error(`WARNING: writing ${batch.size} devices' last-seen times failed (retried): ${String(err)}`);
      }
    }
  }

  function flush(): Promise<void> {
    // One flush at a time: a caller arriving meanwhile waits for it, then writes what came since.
    const next: Promise<void> = (running ?? Promise.resolve()).then(once).finally(() => {
      if (running === next) running = null;
      schedule();
    });
    running = next;
    return next;
  }

  return {
    note(deviceId, at) {
      const known = pending.get(deviceId);
      if (known === undefined || known < at) pending.set(deviceId, at);
      schedule();
    },
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
      if (pending.size > 0) {
        console.error(`WARNING: ${pending.size} devices' last-seen times were not written at shutdown.`);
      }
    },
  };
}
