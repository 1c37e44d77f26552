/**
 * The storage seam: one asynchronous interface per area. Routes and tools see only these; the engine (SQLite, or
 * PostgreSQL with DATABASE_URL) is chosen once at start by openStores() in mod.ts. A method that checks and then writes owns its transaction, so
 * no caller can interleave anything between the check and the write, whatever the engine.
 */
import type { AuditStore } from "./types/audit.ts";
import type { ApiTokenStore } from "./types/api_tokens.ts";
import type { DemoStore } from "./types/demo.ts";
import type { DeviceApiStore } from "./types/device_api.ts";
import type { DeviceTypeStore } from "./types/device_types.ts";
import type { DeviceStore } from "./types/devices.ts";
import type { FirmwareStore } from "./types/firmwares.ts";
import type { LoginAttemptStore } from "./types/login_attempts.ts";
import type { OperatorStore } from "./types/operators.ts";
import type { ProductTypeStore } from "./types/product_types.ts";
import type { ReleaseKeyStore } from "./types/release_keys.ts";
import type { RolloutStore } from "./types/rollouts.ts";
import type { SavedViewStore } from "./types/saved_views.ts";
import type { SystemStore } from "./types/system.ts";
import type { TreatmentStore } from "./types/treatments.ts";

export interface Stores {
  devices: DeviceStore;
  productTypes: ProductTypeStore;
  deviceTypes: DeviceTypeStore;
  firmwares: FirmwareStore;
  treatments: TreatmentStore;
  operators: OperatorStore;
  deviceApi: DeviceApiStore;
  demo: DemoStore;
  loginAttempts: LoginAttemptStore;
  audit: AuditStore;
  apiTokens: ApiTokenStore;
  system: SystemStore;
  rollouts: RolloutStore;
  savedViews: SavedViewStore;
  releaseKeys: ReleaseKeyStore;
}

/** Stores as opened: close() once, when nothing uses them any more. */
export interface OpenStores extends Stores {
  close(): Promise<void>;
}

export type { AuditPage, AuditStore } from "./types/audit.ts";
export type { ApiTokenAuth, ApiTokenStore, TokenManager } from "./types/api_tokens.ts";
export type { DemoData, DemoDevice, DemoStore } from "./types/demo.ts";
export type { DeviceApiStore, FirmwareRef, PolledDevice } from "./types/device_api.ts";
export type { DeviceTypeStore } from "./types/device_types.ts";
export type { DeviceChanges, DevicePage, DeviceStore } from "./types/devices.ts";
export type { FirmwareStore, NewFirmwareRow } from "./types/firmwares.ts";
export type { AttemptKey, AttemptScope, LoginAttemptStore, Reservation } from "./types/login_attempts.ts";
export type { Operator, OperatorStore } from "./types/operators.ts";
export type { ProductTypeStore, ProductTypeUpdate } from "./types/product_types.ts";
export type { NewReleaseKeyRow, ReleaseKeyStore } from "./types/release_keys.ts";
export type { RolloutActor, RolloutStore } from "./types/rollouts.ts";
export type { SavedViewStore, ViewActor } from "./types/saved_views.ts";
export type { SystemStore } from "./types/system.ts";
export type {
  ImportCounts,
  ImportedTreatment,
  ImportSource,
  TreatmentImage,
  TreatmentStore,
} from "./types/treatments.ts";
