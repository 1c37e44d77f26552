/**
 * Quiet polls' answers held in memory, per device (docs/DECISIONS.md, "Device writes beside operator writes ...; the
 * credential and configuration from memory"): an answer is given again while its key is the one the poll's one
 * statement reads — the configuration generation (moved by the database at the commit of every change of a table the
 * answer reads beyond the device's own row, whichever replica made it) and the device's own fields that statement
 * returns. Never stale: a change commits its data and the new generation at once, and an answer is keyed by the
 * generation read before its data (a change between the two only costs a miss). Bounded by the size of the answers
 * as JSON (a configuration with many treatments is large): the oldest stored are dropped first.
 */
export class AnswerCache<T> {
  readonly #answers = new Map<string, { key: string; answer: T; bytes: number }>();
  #bytes = 0;

  constructor(readonly maxBytes = 16 * 1024 * 1024) {}

  get(deviceId: string, key: string): T | undefined {
    const held = this.#answers.get(deviceId);
    return held !== undefined && held.key === key ? held.answer : undefined;
  }

  set(deviceId: string, key: string, answer: T): void {
    this.#drop(deviceId);
    // UTF-16 units of the JSON and the ids: a measure of the memory held, not an exact count.
    const bytes = 2 * (JSON.stringify(answer).length + key.length + deviceId.length) + 100;
    if (bytes > this.maxBytes) return;
    while (this.#bytes + bytes > this.maxBytes) this.#drop(this.#answers.keys().next().value!);
    this.#answers.set(deviceId, { key, answer, bytes });
    this.#bytes += bytes;
  }

  #drop(deviceId: string): void {
    const held = this.#answers.get(deviceId);
    if (held === undefined) return;
    this.#answers.delete(deviceId);
    this.#bytes -= held.bytes;
  }

  /** Answers held, and their measured size. */
  get size(): { answers: number; bytes: number } {
    return { answers: this.#answers.size, bytes: this.#bytes };
  }
}
