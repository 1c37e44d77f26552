/**
 * Every store, in ONE list: each engine's mod.ts opens its connection, makes its Engine (its runner) and the parts
 * that are its own (how it counts the fleet, its SystemStore), and gets the rest from here. A new store is one line
 * below (and its interface in stores.ts).
 */
import type { OpenStores, Stores } from "../stores.ts";
import type { Engine } from "../runner.ts";
import type { FleetCounts } from "./fleet_counts.ts";
import { apiTokenStore } from "./api_tokens.ts";
import { auditStore } from "./audit.ts";
import { demoStore } from "./demo.ts";
import { deviceApiStore } from "./device_api.ts";
import { deviceTypeStore } from "./device_types.ts";
import { deviceStore } from "./devices.ts";
import { firmwareStore } from "./firmwares.ts";
import { keepKeys } from "./firmware_keys.ts";
import { loginAttemptStore } from "./login_attempts.ts";
import { operatorStore } from "./operators.ts";
import { productTypeStore } from "./product_types.ts";
import { releaseKeyStore } from "./release_keys.ts";
import { rolloutStore } from "./rollouts.ts";
import { savedViewStore } from "./saved_views.ts";
import { treatmentStore } from "./treatments.ts";

/** What an engine brings of its own. */
export interface EngineParts {
  fleetCounts: FleetCounts;
  system: Stores["system"];
  /** Closes the engine's connections, once nothing uses them. */
  close(): Promise<void>;
}

/** The stores on `engine`; close() stops their background work, then the engine's. */
export function storesOn(engine: Engine, own: EngineParts): OpenStores {
  const keeper = keepKeys(engine);
  const deviceApi = deviceApiStore(engine);
  return {
    devices: deviceStore(engine, own.fleetCounts),
    productTypes: productTypeStore(engine),
    deviceTypes: deviceTypeStore(engine),
    firmwares: firmwareStore(engine),
    treatments: treatmentStore(engine),
    operators: operatorStore(engine),
    deviceApi,
    demo: demoStore(engine),
    apiTokens: apiTokenStore(engine),
    loginAttempts: loginAttemptStore(engine),
    rollouts: rolloutStore(engine),
    savedViews: savedViewStore(engine),
    releaseKeys: releaseKeyStore(engine),
    audit: auditStore(engine),
    system: own.system,
    close: async () => {
      // The last-seen times still held are written first (server/db/last_seen.ts).
      await deviceApi.closeSeen();
      await keeper.close();
      await own.close();
    },
  };
}
