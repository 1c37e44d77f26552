/**
 * Reads of one row by key, coalesced (docs/DECISIONS.md, "The PostgreSQL quiet poll: its statements coalesced"): up to
 * `inFlight` reads go out at once; a read asked while they are all out waits for the next one to be sent, and every
 * read asked meanwhile goes out with it, as ONE statement for all their keys (`readMany`). So under load many polls
 * share one round trip and one statement's fixed cost, and at rest a read goes out at once. Never stale: a read joins
 * only a statement not sent yet, so each caller's row was read after it asked. A failed statement fails each of its
 * callers with its error.
 */
export class CoalescedReads<R> {
  private waiting = new Map<string, { resolve: (row: R | undefined) => void; reject: (err: unknown) => void }[]>();
  private out = 0;
  private scheduled = false;

  constructor(
    private readonly readMany: (keys: string[]) => Promise<Map<string, R>>,
    private readonly inFlight: number,
    private readonly maxKeys: number,
  ) {}

  /** The row of `key` (undefined: none), read by a statement sent after this call. */
  get(key: string): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      const callers = this.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      // The reads asked in the same turn of microtasks go out together.
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          this.send();
        });
      }
    });
  }

  private send(): void {
    while (this.out < this.inFlight && this.waiting.size > 0) {
      let batch = this.waiting;
      if (batch.size <= this.maxKeys) this.waiting = new Map();
      else {
        batch = new Map();
        for (const [key, callers] of this.waiting) {
          if (batch.size === this.maxKeys) break;
          batch.set(key, callers);
          this.waiting.delete(key);
        }
      }
      this.out++;
      this.readMany([...batch.keys()]).then(
        (rows) => {
          for (const [key, callers] of batch) for (const c of callers) c.resolve(rows.get(key));
        },
        (err) => {
          for (const callers of batch.values()) for (const c of callers) c.reject(err);
        },
      ).finally(() => {
        this.out--;
        this.send();
      });
    }
  }
}
