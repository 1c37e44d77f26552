/**
 * How an engine counts the fleet, where the engines keep different counts (docs/DECISIONS.md, "Fleet views"): SQLite
 * counts covering index ranges, PostgreSQL (whose counts visit rows) reads the counts its triggers keep (the device
 * count, hourly check-ins). Each engine folder implements it (fleet_counts.ts); the device store is handed it.
 */
import type { Overview } from "../../../shared/schemas/device.ts";
import type { ExactCount } from "../rules/device_view.ts";
import type { HoldingRollout } from "../rules/firmware_in_effect.ts";
import type { Param, Q } from "../runner.ts";

/** What the firmware filters and the overview decide from (stores/firmware_keys.ts KeysState). */
export interface FleetKeys {
  defaultFirmware: string | null;
  rollouts: HoldingRollout[];
  current: boolean;
}

export interface FleetCounts {
  /** The keys state in force, in the caller's transaction; a sync is started when the kept keys are behind it. */
  keysState(product: string): Q<FleetKeys>;
  /** The exact total of a filter exactCountOf() names (`where`/`args`: the filter over alias d). */
  exactTotal(exact: ExactCount, where: string, args: readonly Param[], keys: FleetKeys | null): Q<number>;
  /** GET overview. */
  overview(product: string): Q<Overview>;
  /** DeviceStore.pruneCounts (a transaction of its own where there is anything to prune). */
  pruneSeen(at: Date): Q<number>;
  /** DeviceStore.syncFirmwareKeys. */
  syncKeys(product: string): Promise<boolean>;
}
