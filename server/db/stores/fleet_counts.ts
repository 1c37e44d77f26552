/**
 * How an engine counts the fleet, where the engines keep different counts (docs/DECISIONS.md, "Fleet views"): SQLite
 * counts covering index ranges, PostgreSQL (whose counts visit rows) reads the counts its triggers keep (the device
 * count, hourly check-ins). Each engine folder implements it (fleet_counts.ts); the device store is handed it.
 */
import type { Overview } from "../../../shared/schemas/device.ts";
import type { ExactCount } from "../rules/device_view.ts";
import { firmwareCondition, type HoldingRollout, keptFirmwareTotal } from "../rules/firmware_in_effect.ts";
import { groupCounts } from "../rules/fleet_overview.ts";
import { all, dialect, type Param, type Q } from "../runner.ts";
import { type KeysState, keysState, kickWhenBehind } from "./firmware_keys.ts";

/** What the firmware filters and the overview decide from (stores/firmware_keys.ts KeysState). */
export interface FleetKeys {
  defaultFirmware: string | null;
  rollouts: HoldingRollout[];
  current: boolean;
  /** PostgreSQL: the text of the state it was read as (firmware_keys.ts KEYS_STATE_SQL). */
  text?: string;
}

/** A total as an SQL expression (a scalar subquery) and how its value is read. */
export interface TotalSql {
  sql: string;
  args: Param[];
  read(value: unknown): number;
}

export interface FleetCounts {
  /** The exact total of a filter exactCountOf() names (`where`/`args`: the filter over alias d). */
  exactTotal(exact: ExactCount, where: string, args: readonly Param[], keys: FleetKeys | null): Q<number>;
  /**
   * exactTotal as one SQL value beside a page's own (stores/device_page.ts): the expression, its parameters and how its
   * value is read. Absent where the engine reads a page in a transaction of several statements (SQLite).
   */
  exactTotalSql?(exact: ExactCount, keys: FleetKeys | null): TotalSql;
  /** GET overview. */
  overview(product: string): Q<Overview>;
  /** DeviceStore.pruneCounts (a transaction of its own where there is anything to prune). */
  pruneSeen(at: Date): Q<number>;
}

/** The keys state in force, in the caller's transaction; a sync is started when the kept keys are behind it. */
export function* keysInForce(product: string): Q<KeysState> {
  const keys = yield* keysState(product);
  kickWhenBehind(keys, product);
  return keys;
}

/** The exact total of a firmware filter from the kept group counts, once the kept keys are current. */
export function* keptFirmwareCount(exact: Extract<ExactCount, { kind: "firmware" }>, keys: FleetKeys): Q<number> {
  const groups = groupCounts(
    yield* all<{ dim: string; key: string; n: number }>(
      "SELECT dim, key, n FROM device_group_counts WHERE dim IN ('firmware', 'effective')",
    ),
  );
  return keptFirmwareTotal(firmwareCondition(exact.filter, keys.defaultFirmware), keys.defaultFirmware, {
    custom: groups.firmware,
    effective: groups.effective,
  });
}

/**
 * The devices that installed each of these cancelled rollouts and have no firmware of their own (few: a cancelled
 * rollout holds only those), with their product types.
 */
export function* installedOfCancelled(
  rolloutIds: readonly string[],
): Q<Map<string, { deviceId: string; productTypeId: string | null }[]>> {
  const installed = new Map(rolloutIds.map((id) => [id, [] as { deviceId: string; productTypeId: string | null }[]]));
  if (!rolloutIds.length) return installed;
  const d = yield* dialect();
  for (
    const r of yield* all<{ rollout_id: string; device_id: string; product_type_id: string | null }>(
      `SELECT rd.rollout_id, rd.device_id, d.product_type_id FROM rollout_devices rd
       JOIN devices d ON d.device_id = rd.device_id
       WHERE ${d.inList("rd.rollout_id")} AND rd.state = 'installed' AND d.firmware_id IS NULL`,
      d.list(rolloutIds),
    )
  ) installed.get(r.rollout_id)!.push({ deviceId: r.device_id, productTypeId: r.product_type_id ?? null });
  return installed;
}
