/**
 * How SQLite counts the fleet (stores/fleet_counts.ts): the kept group counts where they answer, else one covering
 * index range; it keeps no hourly check-in counts (a range of the check-in index is as cheap).
 */
import type { DeviceSeen, Overview } from "../../../shared/schemas/device.ts";
import { seenExactSql } from "../rules/device_view.ts";
import type { HoldingRolloutRow } from "../rules/firmware_in_effect.ts";
import {
  firmwareDistribution,
  groupCounts,
  heldByDeciding,
  keptDistribution,
  overviewLists,
  overviewProductTypes,
} from "../rules/fleet_overview.ts";
import { all, one, type Param, type Q } from "../runner.ts";
import { type FleetCounts, installedOfCancelled, keptFirmwareCount, keysInForce } from "../stores/fleet_counts.ts";
import type { KeysState } from "../stores/firmware_keys.ts";

function* count(where: string, ...args: Param[]): Q<number> {
  return (yield* one<{ n: number }>(`SELECT COUNT(*) AS n FROM devices d WHERE ${where}`, ...args))!.n;
}

/** Devices by their exact last check-in: one range of device_seen's index. */
function* seenCount(seen: DeviceSeen): Q<number> {
  const args: Param[] = [];
  const where = seenExactSql(seen, (v) => {
    args.push(v);
    return "?";
  });
  return (yield* one<{ n: number }>(`SELECT COUNT(*) AS n FROM device_seen s WHERE ${where}`, ...args))!.n;
}

function* keptSum(dim: string, keyCondition: string, ...args: Param[]): Q<number> {
  return (yield* one<{ n: number }>(
    `SELECT coalesce(sum(n), 0) AS n FROM device_group_counts WHERE dim = ? AND ${keyCondition}`,
    dim,
    ...args,
  ))!.n;
}

/** GET overview from count queries, each served by an index. */
function* overviewOf(product: string): Q<Overview> {
  const total = (yield* one<{ n: number }>("SELECT COUNT(*) AS n FROM devices INDEXED BY devices_order"))!.n;
  const seen24h = yield* seenCount("24h");
  const seen7d = yield* seenCount("7d");
  const never = yield* seenCount("never");
  const pending = yield* count("d.admission = 'pending'");

  const types = yield* all<{ id: string; name: string }>("SELECT id, name FROM product_types");
  const groups = groupCounts(
    yield* all<{ dim: string; key: string; n: number }>("SELECT dim, key, n FROM device_group_counts"),
  );
  const productTypes = overviewProductTypes(types, groups.productType);

  const keys = yield* keysInForce(product);
  const byFirmware = keys.current
    ? keptDistribution(groups.effective, keys.defaultFirmware)
    : yield* heldDistribution(keys, groups.firmware);
  const firmwareNames = new Map(
    (yield* all<{ id: string; name: string }>("SELECT id, name FROM firmwares")).map((f) => [f.id, f.name]),
  );
  return {
    devices: { total, seen24h, seen7d, stale: total - seen7d - never, never, pending },
    productTypes,
    ...overviewLists(byFirmware, firmwareNames, groups.app),
  };
}

/**
 * The firmware distribution while the kept keys lag behind the rollouts (a sync is due): each deciding rollout's
 * devices from its kept counts (rules/fleet_overview.ts firmwareDistribution; not exact where rollouts overlap).
 */
function* heldDistribution(keys: KeysState, custom: ReadonlyMap<string | null, number>): Q<Map<string | null, number>> {
  // The rollouts that decide some device's firmware, their devices from their kept counts less their pinned members
  // (counted from the custom devices, few, through rollout_devices' key).
  const rolloutRows = yield* all<HoldingRolloutRow & { in_stage: number; installed: number }>(
    `SELECT r.id, r.firmware_id, r.product_type_id, r.state, r.stages, r.stage, r.in_stage, r.installed
     FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
     WHERE r.state IN ('running', 'paused', 'finished') OR (r.state = 'cancelled' AND r.installed > 0)
     ORDER BY r.rowid DESC`,
  );
  const deciding = keys.rollouts;
  const installed = yield* installedOfCancelled(deciding.filter((r) => r.cancelled).map((r) => r.id));
  const pinned = new Map<string, number>();
  for (const r of deciding.filter((r) => !r.cancelled)) {
    const { n } = (yield* one<{ n: number }>(
      `SELECT COUNT(*) AS n FROM devices c INDEXED BY devices_custom_seen
         CROSS JOIN rollout_devices rd ON rd.rollout_id = ? AND rd.device_id = c.device_id
       WHERE c.firmware_id IS NOT NULL AND CASE WHEN ? THEN rd.state = 'installed' ELSE rd.bucket < ? END`,
      r.id,
      0,
      r.percent,
    ))!;
    pinned.set(r.id, n);
  }
  const held = heldByDeciding(deciding, rolloutRows, installed, (id) => pinned.get(id) ?? 0);
  return firmwareDistribution(custom, keys.defaultFirmware, held);
}

export function sqliteFleetCounts(): FleetCounts {
  return {
    /** The kept group counts, or (seen, and firmware before the keys are current) one covering index range. */
    *exactTotal(exact, where, args, keys) {
      switch (exact.kind) {
        case "all":
          return yield* keptSum("productType", "1");
        case "productType":
          return yield* keptSum("productType", "key = ?", exact.id === null ? "none" : `v:${exact.id}`);
        case "app":
          return yield* keptSum("app", "key = ?", `v:${exact.version}`);
        case "firmware":
          if (keys?.current) return yield* keptFirmwareCount(exact, keys);
          return yield* count(where, ...args);
        case "seen":
          return yield* seenCount(exact.seen);
      }
    },
    overview: overviewOf,
    // deno-lint-ignore require-yield
    *pruneSeen() {
      return 0;
    },
  };
}
