import { type Db, sql } from "../db/mod.ts";

/**
 * Serialized answers of hot read routes, reused until the next write. The version is SQLite's
 * total_changes() of the server's single connection: every INSERT, UPDATE or DELETE this process makes
 * (all writes go through it) bumps it, so a cached answer can never outlive the data it was made from.
 */
export class ReadCache {
  #version = -1;
  #entries = new Map<string, string>();

  constructor(private readonly db: Db, private readonly maxEntries = 256) {}

  get(key: string, make: () => unknown): string {
    const version = (sql(this.db, "SELECT total_changes() AS v").get() as { v: number }).v;
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
    }
    let json = this.#entries.get(key);
    if (json === undefined) {
      json = JSON.stringify(make());
      if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(key, json);
    }
    return json;
  }
}
