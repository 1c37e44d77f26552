/**
 * The SQLite engine: one file, one synchronous connection; every store method runs to completion in one turn, but two:
 * a treatment import writes in several short transactions with turns between them (the publish is one), and the
 * treatment list is read in chunks on a connection of its own (runner.ts, stream).
 */
import type { OpenStores } from "../stores.ts";
import { storesOn } from "../stores/registry.ts";
import { mapSqliteError, sqliteEngine } from "./runner.ts";
import { sqliteFleetCounts } from "./fleet_counts.ts";
import { openDatabase } from "./open.ts";
import { watchChanges } from "./changes.ts";
import { rememberCredentials } from "./remembered_credentials.ts";

/** Opens the database file (creating and migrating it as needed); NewerSchemaError leaves it untouched. */
export function openSqliteStores(file: string): OpenStores {
  let db;
  try {
    db = openDatabase(file);
  } catch (err) {
    throw mapSqliteError(err);
  }
  const engine = sqliteEngine(db);
  const stores = storesOn(engine, {
    fleetCounts: sqliteFleetCounts(),
    system: {
      ping: () => Promise.resolve(),
      sharedSecret: () => Promise.resolve(null),
      // Several processes on one SQLite file start rarely; each step is its own transaction (addFirst, ensure).
      exclusive: (fn) => fn(),
    },
    close: () => {
      if (db.isOpen) db.close();
      return Promise.resolve();
    },
  });
  // Every operator request's statement from memory while nothing it reads changed (remembered_credentials.ts).
  const changes = watchChanges(db, file);
  return changes ? rememberCredentials(stores, changes) : stores;
}
