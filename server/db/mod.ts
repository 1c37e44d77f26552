/**
 * Where the engine is chosen, once at start. Everything else sees only the interfaces of stores.ts.
 * PostgreSQL (with read replicas) will be a second `engine` here, implementing the same interfaces.
 */
import { openSqliteStores } from "./sqlite/mod.ts";
import type { OpenStores } from "./stores.ts";

export type StoresConfig = { engine: "sqlite"; file: string };

/** The engine the server's configuration selects: for now always the SQLite file in DATA_DIR. */
export const storesConfig = (paths: { db: string }): StoresConfig => ({ engine: "sqlite", file: paths.db });

/** Opens the stores; NewerSchemaError for a database from a newer release (left untouched). */
export function openStores(config: StoresConfig): Promise<OpenStores> {
  switch (config.engine) {
    case "sqlite":
      return new Promise((resolve) => resolve(openSqliteStores(config.file)));
  }
}

export { NewerSchemaError } from "./errors.ts";
export type { OpenStores, Stores } from "./stores.ts";

export { type DatabaseSnapshot, type FirmwareRow, snapshotDatabase } from "./sqlite/snapshot.ts";
