/**
 * Quiet polls' answers held in memory, per device (docs/DECISIONS.md, "Device writes beside operator writes ...; the
 * credential and configuration from memory"): an answer is given again while its key is the one the poll's one
 * statement reads — the configuration generation (moved by the database at the commit of every change of a table the
 * answer reads beyond the device's own row, whichever replica made it) and the device's own fields that statement
 * returns. Never stale: a change commits its data and the new generation at once, and an answer is keyed by the
 * generation read before its data (a change between the two only costs a miss). At most MAX devices (the oldest
 * stored is dropped first).
 */
export class AnswerCache<T> {
  readonly #answers = new Map<string, { key: string; answer: T }>();

  constructor(readonly max = 50_000) {}

  get(deviceId: string, key: string): T | undefined {
    const held = this.#answers.get(deviceId);
    return held !== undefined && held.key === key ? held.answer : undefined;
  }

  set(deviceId: string, key: string, answer: T): void {
    if (!this.#answers.delete(deviceId) && this.#answers.size >= this.max) {
      this.#answers.delete(this.#answers.keys().next().value!);
    }
    this.#answers.set(deviceId, { key, answer });
  }

  get size(): number {
    return this.#answers.size;
  }
}
