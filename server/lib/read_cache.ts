/**
 * Serialized answers of hot read routes, reused while the data's version stays the same. The version comes from the
 * database (a counter bumped in the same transaction as every write it covers, by any process), so a cached answer
 * can never outlive the data it was made from.
 */
export class ReadCache {
  #version = -1;
  #entries = new Map<string, string>();

  constructor(private readonly version: () => Promise<number>, private readonly maxEntries = 256) {}

  /**
   * `known`: the version as the caller read it already (before any of the data: GET devices reads it with the
   * operator, docs/DECISIONS.md, "The fixed work of a request"). The version only grows: an answer under an older one
   * than the cache's is made fresh and not kept.
   */
  async get(key: string, make: () => Promise<unknown>, known?: number): Promise<string> {
    // The version is read before the data, so an answer is at least as new as the version it is kept under.
    const version = known ?? await this.version();
    if (version < this.#version) return JSON.stringify(await make());
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
    }
    let json = this.#entries.get(key);
    if (json === undefined) {
      json = JSON.stringify(await make());
      // Another request may have moved the cache to a newer version meanwhile: keep only answers made under it.
      if (this.#version !== version) return json;
      if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(key, json);
    }
    return json;
  }
}
