/**
 * Where the engine is chosen, once at start. Everything else sees only the interfaces of stores.ts.
 * SQLite (the file in DATA_DIR) by default; PostgreSQL when DATABASE_URL is set (any number of replicas).
 */
import { openSqliteStores } from "./sqlite/mod.ts";
import type { OpenStores } from "./stores.ts";

export type StoresConfig =
  | { engine: "sqlite"; file: string }
  | { engine: "postgres"; url: string; poolSize: number };

/** The engine the server's configuration selects: PostgreSQL with DATABASE_URL, else the SQLite file in DATA_DIR. */
export const storesConfig = (
  paths: { db: string },
  config: { DATABASE_URL?: string; DATABASE_POOL_SIZE?: number } = {},
): StoresConfig =>
  config.DATABASE_URL
    ? { engine: "postgres", url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE ?? 10 }
    : { engine: "sqlite", file: paths.db };

/** Opens the stores; NewerSchemaError for a database from a newer release (left untouched). */
export function openStores(config: StoresConfig): Promise<OpenStores> {
  switch (config.engine) {
    case "sqlite":
      return new Promise((resolve) => resolve(openSqliteStores(config.file)));
    case "postgres":
      // Loaded only for PostgreSQL: the driver is memory a server on SQLite never uses.
      return import("./postgres/mod.ts").then((m) =>
        m.openPostgresStores({ url: config.url, poolSize: config.poolSize })
      );
  }
}

export { DatabaseUrlError, NewerSchemaError, StoreUnavailableError } from "./errors.ts";
export type { OpenStores, Stores } from "./stores.ts";

export { type DatabaseSnapshot, type FirmwareRow, snapshotDatabase } from "./sqlite/snapshot.ts";
