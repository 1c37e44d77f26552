/**
 * The SQLite engine: one file, one synchronous connection; every store method runs to completion in one turn, but two:
 * a treatment import writes in several short transactions with turns between them (the publish is one), and the
 * treatment list is read in chunks on a connection of its own (treatments.ts).
 */
import type { OpenStores } from "../stores.ts";
import { auditStore } from "../stores/audit.ts";
import { apiTokenStore } from "../stores/api_tokens.ts";
import { sqliteDemo } from "./demo.ts";
import { firmwareStore } from "../stores/firmwares.ts";
import { loginAttemptStore } from "../stores/login_attempts.ts";
import { mapSqliteError, sqliteEngine } from "./runner.ts";
import { guarded } from "../runner.ts";
import { deviceTypeStore } from "../stores/device_types.ts";
import { deviceApiStore } from "../stores/device_api.ts";
import { deviceStore } from "../stores/devices.ts";
import { keepKeys } from "../stores/firmware_keys.ts";
import { productTypeStore } from "../stores/product_types.ts";
import { rolloutStore } from "../stores/rollouts.ts";
import { treatmentStore } from "../stores/treatments.ts";
import { sqliteFleetCounts } from "./fleet_counts.ts";
import { openDatabase } from "./open.ts";
import { operatorStore } from "../stores/operators.ts";
import { releaseKeyStore } from "../stores/release_keys.ts";
import { savedViewStore } from "../stores/saved_views.ts";
import { sqliteTreatments } from "./treatments.ts";

/** Opens the database file (creating and migrating it as needed); NewerSchemaError leaves it untouched. */
export function openSqliteStores(file: string): OpenStores {
  let db;
  try {
    db = openDatabase(file);
  } catch (err) {
    throw mapSqliteError(err);
  }
  const engine = sqliteEngine(db);
  const g = <S extends object>(store: S) => guarded(engine, store);
  const keeper = keepKeys(engine);
  const deviceApi = deviceApiStore(engine);
  return {
    devices: deviceStore(engine, sqliteFleetCounts(engine)),
    productTypes: productTypeStore(engine),
    deviceTypes: deviceTypeStore(engine),
    firmwares: firmwareStore(engine),
    treatments: treatmentStore(engine, g(sqliteTreatments(db, file))),
    operators: operatorStore(engine),
    deviceApi,
    demo: g(sqliteDemo(db)),
    apiTokens: apiTokenStore(engine),
    loginAttempts: loginAttemptStore(engine),
    rollouts: rolloutStore(engine),
    savedViews: savedViewStore(engine),
    releaseKeys: releaseKeyStore(engine),
    audit: auditStore(engine),
    system: {
      ping: () => Promise.resolve(),
      sharedSecret: () => Promise.resolve(null),
      // Several processes on one SQLite file start rarely; each step is its own transaction (addFirst, ensure).
      exclusive: (fn) => fn(),
    },
    close: async () => {
      await deviceApi.closeSeen();
      await keeper.close();
      if (db.isOpen) db.close();
    },
  };
}
