/**
 * Quiet polls' answers held in memory, each in a slot: a configuration's key (its devices share it) or a device id
 * (docs/DECISIONS.md, "Device writes beside operator writes ...; the credential and configuration from memory" and
 * "Quiet answers shared by the devices of one configuration"): an answer is given again while its key is the one the
 * poll's one statement reads — the configuration generation (moved by the database at the commit of every change of a
 * table the answer reads beyond the device's own row, whichever replica made it) and the device's own fields and flags
 * that statement returns. Never stale: a change commits its data and the new generation at once, and an answer is
 * held only under the generation it was read in. Bounded by the size of the answers as JSON (a configuration with
 * many treatments is large): the oldest stored are dropped first.
 */
export class AnswerCache<T> {
  readonly #answers = new Map<string, { key: string; answer: T; bytes: number }>();
  #bytes = 0;

  constructor(readonly maxBytes = 16 * 1024 * 1024) {}

  get(slot: string, key: string): T | undefined {
    const held = this.#answers.get(slot);
    return held !== undefined && held.key === key ? held.answer : undefined;
  }

  set(slot: string, key: string, answer: T): void {
    this.#drop(slot);
    // UTF-16 units of the JSON and the ids: a measure of the memory held, not an exact count.
    const bytes = 2 * (JSON.stringify(answer).length + key.length + slot.length) + 100;
    if (bytes > this.maxBytes) return;
    while (this.#bytes + bytes > this.maxBytes) this.#drop(this.#answers.keys().next().value!);
    this.#answers.set(slot, { key, answer, bytes });
    this.#bytes += bytes;
  }

  #drop(slot: string): void {
    const held = this.#answers.get(slot);
    if (held === undefined) return;
    this.#answers.delete(slot);
    this.#bytes -= held.bytes;
  }

  /** Answers held, and their measured size. */
  get size(): { answers: number; bytes: number } {
    return { answers: this.#answers.size, bytes: this.#bytes };
  }
}
