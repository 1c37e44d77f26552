/**
 * How SQLite counts the fleet (stores/fleet_counts.ts): the kept group counts where they answer, else one covering
 * index range; it keeps no hourly check-in counts (a range of the check-in index is as cheap).
 */
import type { Overview } from "../../../shared/schemas/device.ts";
import { seenSince } from "../rules/device_view.ts";
import { firmwareCondition, type HoldingRolloutRow, keptFirmwareTotal } from "../rules/firmware_in_effect.ts";
import {
  firmwareDistribution,
  groupCounts,
  heldByDeciding,
  keptDistribution,
  overviewLists,
  overviewProductTypes,
} from "../rules/fleet_overview.ts";
import { all, type Engine, one, type Param, type Q } from "../runner.ts";
import type { FleetCounts } from "../stores/fleet_counts.ts";
import { type KeysState, keysState, kickWhenBehind, syncKeys } from "../stores/firmware_keys.ts";

function* count(where: string, ...args: Param[]): Q<number> {
  return (yield* one<{ n: number }>(`SELECT COUNT(*) AS n FROM devices d WHERE ${where}`, ...args))!.n;
}

function* keptSum(dim: string, keyCondition: string, ...args: Param[]): Q<number> {
  return (yield* one<{ n: number }>(
    `SELECT coalesce(sum(n), 0) AS n FROM device_group_counts WHERE dim = ? AND ${keyCondition}`,
    dim,
    ...args,
  ))!.n;
}

function* keysInForce(product: string): Q<KeysState> {
  const keys = yield* keysState(product);
  kickWhenBehind(keys, product);
  return keys;
}

/** GET overview from count queries, each served by an index. */
function* overviewOf(product: string): Q<Overview> {
  const total = (yield* one<{ n: number }>("SELECT COUNT(*) AS n FROM devices INDEXED BY devices_order"))!.n;
  const seen24h = yield* count("d.last_logged_in >= ?", seenSince("24h")!);
  const seen7d = yield* count("d.last_logged_in >= ?", seenSince("7d")!);
  const never = yield* count("d.last_logged_in IS NULL");
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
     ORDER BY r.created_at DESC, r.id DESC`,
  );
  const deciding = keys.rollouts;
  // A cancelled rollout's devices (those that installed it: few) are counted one by one.
  const installed = new Map<string, { deviceId: string; productTypeId: string | null }[]>();
  for (const c of deciding.filter((r) => r.cancelled)) {
    const rows = yield* all<{ device_id: string; product_type_id: string | null }>(
      `SELECT rd.device_id, d.product_type_id FROM rollout_devices rd JOIN devices d ON d.device_id = rd.device_id
       WHERE rd.rollout_id = ? AND rd.state = 'installed' AND d.firmware_id IS NULL`,
      c.id,
    );
    installed.set(c.id, rows.map((m) => ({ deviceId: m.device_id, productTypeId: m.product_type_id })));
  }
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

export function sqliteFleetCounts(engine: Engine): FleetCounts {
  return {
    keysState: keysInForce,
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
          if (keys?.current) {
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
          return yield* count(where, ...args);
        case "seen":
          return yield* count(where, ...args);
      }
    },
    overview: overviewOf,
    // deno-lint-ignore require-yield
    *pruneSeen() {
      return 0;
    },
    syncKeys: (product) => syncKeys(engine, product),
  };
}
