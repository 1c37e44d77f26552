/**
 * Serialized answers of hot read routes, reused while the data's version stays the same. The version comes from the
 * database (a counter bumped in the same transaction as every write it covers, by any process), so a cached answer
 * can never outlive the data it was made from.
 */
export class ReadCache {
  #version = -1;
  #entries = new Map<string, string>();

  constructor(private readonly version: () => Promise<number>, private readonly maxEntries = 256) {}

  async get(key: string, make: () => Promise<unknown>): Promise<string> {
    // The version is read before the data, so an answer is at least as new as the version it is kept under.
    const version = await this.version();
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
