/**
 * Login throttle per e-mail: after MAX_FAILURES failures within WINDOW_MS, that e-mail is refused
 * with 429 until the window has passed since the last failure. A success clears the record.
 */
export const MAX_FAILURES = 5;
export const WINDOW_MS = 15 * 60 * 1000;
const MAX_TRACKED = 10_000;

interface Record {
  failures: number;
  last: number;
}

export class LoginThrottle {
  #records = new Map<string, Record>();

  /** Seconds to wait before another try, or 0 when a try is allowed now. */
  retryAfter(key: string, at = Date.now()): number {
    const r = this.#records.get(key);
    if (!r) return 0;
    if (at - r.last > WINDOW_MS) {
      this.#records.delete(key);
      return 0;
    }
    return r.failures >= MAX_FAILURES ? Math.ceil((r.last + WINDOW_MS - at) / 1000) : 0;
  }

  fail(key: string, at = Date.now()): void {
    const r = this.#records.get(key);
    if (r && at - r.last <= WINDOW_MS) {
      r.failures++;
      r.last = at;
    } else {
      if (this.#records.size >= MAX_TRACKED) this.#prune(at);
      this.#records.set(key, { failures: 1, last: at });
    }
  }

  succeed(key: string): void {
    this.#records.delete(key);
  }

  #prune(at: number) {
    for (const [k, r] of this.#records) if (at - r.last > WINDOW_MS) this.#records.delete(k);
    // Still full: drop the oldest entries (Map keeps insertion order).
    for (const k of this.#records.keys()) {
      if (this.#records.size < MAX_TRACKED) break;
      this.#records.delete(k);
    }
  }
}
