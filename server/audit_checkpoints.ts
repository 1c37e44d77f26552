/**
 * Audit checkpoints (docs/REQUIREMENTS.md §17): the chain's head (count, hash) published outside the database, so a truncated or
 * rewritten tail is evident (`deno task audit-verify --checkpoint`). Every AUDIT_CHECKPOINT_SECONDS (at most 10
 * minutes) the head is read (one row); when it moved since the last checkpoint, an `audit.checkpoint` log line is
 * written and, with S3_BUCKET, the write-once object `audit/checkpoints/<count>.json`. Once at start and once at
 * shutdown too. A bucket out of reach is retried at the next tick; the log line is written regardless.
 */
import type { AuditCheckpoint } from "./db/rules/audit.ts";
import type { CheckpointObjects, PublishedCheckpoint } from "./files/checkpoint_objects.ts";

/** How long the last checkpoint may wait for the bucket at shutdown. */
const STOP_WAIT_MS = 3000;

export interface AuditCheckpointsOptions {
  head: () => Promise<AuditCheckpoint>;
  everyMs: number;
  /** Writes the `audit.checkpoint` line (the logger's event). */
  publish: (checkpoint: PublishedCheckpoint) => void;
  objects: CheckpointObjects | null;
  log: (line: string) => void;
}

export interface AuditCheckpoints {
  /** Publishes the head if it moved (the timer's tick; also at start). */
  tick(): Promise<void>;
  /** Stops the timer and publishes a last time (shutdown, before the stores close). */
  stop(): Promise<void>;
}

export function startAuditCheckpoints(opts: AuditCheckpointsOptions): AuditCheckpoints {
  // The last head published to each place, as "count:hash" (a tail rewritten behind the server's back to the same
  // count is a new head).
  let logged = "";
  let stored = "";
  let running: Promise<void> | null = null;
  let warned = false;

  const once = async () => {
    let head: AuditCheckpoint;
    try {
      head = await opts.head();
    } catch {
      return; // the database is down: the next tick tries again (the store error is counted elsewhere)
    }
    const key = `${head.count}:${head.hash}`;
    if (key === logged && (!opts.objects || key === stored)) return;
    const checkpoint = { count: head.count, hash: head.hash, at: new Date().toISOString() };
    if (key !== logged) {
      opts.publish(checkpoint);
      logged = key;
    }
    if (opts.objects && key !== stored) {
      try {
        await opts.objects.put(checkpoint);
        stored = key;
        warned = false;
      } catch (err) {
        if (!warned) {
          opts.log(
            `WARNING: audit checkpoint ${head.count} was not stored in the bucket ` +
              `(${err instanceof Error ? err.message : err}); retrying every tick.`,
          );
        }
        warned = true;
      }
    }
  };
  const tick = () => running ??= once().finally(() => running = null);

  const timer = setInterval(() => void tick(), opts.everyMs);
  Deno.unrefTimer(timer);
  return {
    tick,
    async stop() {
      clearInterval(timer);
      // The log line goes out at once; a bucket that hangs does not hold the shutdown past STOP_WAIT_MS.
      let late: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((r) => late = setTimeout(r, STOP_WAIT_MS));
      await Promise.race([
        (async () => {
          await running;
          await tick();
        })(),
        deadline,
      ]);
      clearTimeout(late);
    },
  };
}
