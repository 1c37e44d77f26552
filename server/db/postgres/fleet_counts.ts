/**
 * How PostgreSQL counts the fleet (stores/fleet_counts.ts): each device a count visits is a row visit here (every
 * check-in clears the visibility map), so totals come from counts its triggers keep: the device_count counter row,
 * the kept group counts and the hourly check-in counts (migration 10), pruned by pruneSeen.
 */
import type { DeviceSeen, Overview } from "../../../shared/schemas/device.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { type ExactCount, nextHour, seenHourKey, seenPruneBefore, seenSince } from "../rules/device_view.ts";
import { firmwareCondition, holdingRollouts, keptFirmwareTotal } from "../rules/firmware_in_effect.ts";
import {
  firmwareDistribution,
  groupCounts,
  heldByDeciding,
  keptDistribution,
  overviewLists,
  overviewProductTypes,
} from "../rules/fleet_overview.ts";
import { all, one, type Q, run, unlocked } from "../runner.ts";
import {
  type FleetCounts,
  type FleetKeys,
  installedOfCancelled,
  keptFirmwareCount,
  type TotalSql,
} from "../stores/fleet_counts.ts";
import { type KeysState, keysStateOf, kickWhenBehind } from "../stores/firmware_keys.ts";

function* keptCount(dim: string, key: string): Q<number> {
  return Number(
    (yield* one<{ n: number }>("SELECT n FROM device_group_counts WHERE dim = ? AND key = ?", dim, key))?.n ?? 0,
  );
}

function* deviceCount(): Q<number> {
  return Number(
    (yield* one<{ value: number }>("SELECT value FROM change_counters WHERE name = 'device_count'"))!.value,
  );
}

/** How many devices checked in since the `seen` filter's time (or never), from the kept hours (SEEN_SINCE). */
function* seenCount(seen: DeviceSeen): Q<number> {
  if (seen === "stale") {
    // Every device less those seen within 7 days and those never seen: three kept counts.
    return (yield* deviceCount()) - (yield* seenCount("7d")) - (yield* seenCount("never"));
  }
  const since = seenSince(seen);
  if (since === null) return yield* keptCount("seen", "none");
  return Number((yield* one<{ n: number }>(`SELECT ${SEEN_SINCE} AS n`, ...seenArgs(since)))!.n);
}

/** Devices seen since a time: the kept hours after the one it falls in, plus that hour's devices from it on. */
const SEEN_SINCE = `(SELECT coalesce(sum(n), 0) FROM device_group_counts WHERE dim = 'seen' AND key > ? AND key < 'i')
  + (SELECT count(*) FROM device_seen WHERE last_logged_in >= ? AND last_logged_in < ?)`;
const seenArgs = (since: string) => [seenHourKey(since), since, nextHour(since)];

/**
 * GET overview in one round trip: the total from the device_count counter row, the check-in counts from the hours
 * kept by triggers (seenCount), the groups kept by triggers, and the names.
 */
function* overviewOf(product: string): Q<Overview> {
  // deno-lint-ignore no-explicit-any
  const row = (yield* one<Record<string, any>>(
    `SELECT
      (SELECT value FROM change_counters WHERE name = 'device_count') AS total,
      ${SEEN_SINCE} AS seen24h, ${SEEN_SINCE} AS seen7d,
      (SELECT coalesce(sum(n), 0) FROM device_group_counts WHERE dim = 'seen' AND key = 'none') AS never,
      (SELECT count(*) FROM devices WHERE admission = 'pending') AS pending,
      (SELECT json_agg(json_build_array(id, name)) FROM product_types) AS types,
      (SELECT json_agg(json_build_array(dim, key, n)) FROM device_group_counts WHERE dim <> 'seen') AS groups,
      (SELECT default_firmware FROM device_types WHERE name = ?) AS default_firmware,
      (SELECT generation FROM firmware_keys) AS generation,
      (SELECT kept FROM firmware_keys) AS kept,
      (SELECT json_agg(json_build_array(id, name)) FROM firmwares) AS firmwares,
      (SELECT json_agg(json_build_array(r.id, r.firmware_id, r.product_type_id, r.state, r.stages, r.stage, r.in_stage,
          r.installed) ORDER BY r.seq DESC)
        FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
        WHERE r.state IN ('running', 'paused', 'finished')
          OR (r.state = 'cancelled' AND r.installed > 0)) AS rollouts`,
    ...seenArgs(seenSince("24h")!),
    ...seenArgs(seenSince("7d")!),
    deviceTypeName(product),
  ))!;
  const total = Number(row.total);
  const [seen24h, seen7d, never] = [Number(row.seen24h), Number(row.seen7d), Number(row.never)];
  const types = ((row.types ?? []) as [string, string][]).map(([id, name]) => ({ id, name }));
  const groups = groupCounts(
    ((row.groups ?? []) as [string, string, number][]).map(([dim, key, n]) => ({ dim, key, n })),
  );
  const productTypes = overviewProductTypes(types, groups.productType);

  const defaultFirmware = (row.default_firmware as string | null) ?? null;
  // The rollouts that decide some device's firmware, their devices from their kept counts less their pinned members
  // (counted from the custom devices, few, through rollout_devices' key).
  const rolloutRows =
    ((row.rollouts ?? []) as [string, string, string | null, string, string, number, number, number][])
      .map(([id, firmware_id, product_type_id, state, stages, stage, in_stage, installed]) => (
        { id, firmware_id, product_type_id, state, stages, stage, in_stage, installed }
      ));
  const keys = keysStateOf(Number(row.generation), row.kept ?? null, defaultFirmware, holdingRollouts(rolloutRows));
  kickWhenBehind(keys, product);
  const byFirmware = keys.current
    ? keptDistribution(groups.effective, defaultFirmware)
    : yield* heldDistribution(keys, rolloutRows, groups.firmware);
  const firmwareNames = new Map((row.firmwares ?? []) as [string, string][]);
  return {
    devices: { total, seen24h, seen7d, stale: total - seen7d - never, never, pending: Number(row.pending) },
    productTypes,
    ...overviewLists(byFirmware, firmwareNames, groups.app),
  };
}

/**
 * The firmware distribution while the kept keys lag behind the rollouts (a sync is due): each deciding rollout's
 * devices from its kept counts (rules/fleet_overview.ts firmwareDistribution; not exact where rollouts overlap).
 */
function* heldDistribution(
  keys: KeysState,
  rolloutRows: { id: string; state: string; in_stage: number; installed: number }[],
  custom: ReadonlyMap<string | null, number>,
): Q<Map<string | null, number>> {
  const deciding = keys.rollouts;
  const pinned = new Map<string, number>();
  if (deciding.length) {
    const rows = yield* all<{ rollout_id: string; n: number }>(
      `SELECT rd.rollout_id, count(*) AS n
       FROM (SELECT device_id FROM devices WHERE firmware_id IS NOT NULL OFFSET 0) c
       JOIN rollout_devices rd ON rd.device_id = c.device_id AND rd.rollout_id = ANY(?::text[])
       JOIN rollouts r ON r.id = rd.rollout_id
       WHERE CASE WHEN r.state = 'cancelled' THEN rd.state = 'installed' ELSE rd.bucket < r.stage_percent END
       GROUP BY rd.rollout_id`,
      deciding.map((r) => r.id),
    );
    for (const r of rows) pinned.set(r.rollout_id, Number(r.n));
  }
  const installed = yield* installedOfCancelled(deciding.filter((d) => d.cancelled).map((d) => d.id));
  const held = heldByDeciding(deciding, rolloutRows, installed, (id) => pinned.get(id) ?? 0);
  return firmwareDistribution(custom, keys.defaultFirmware, held);
}

const asNumber = (v: unknown) => Number(v);
const kept = (dim: string, key: string): TotalSql => ({
  sql: "coalesce((SELECT n FROM device_group_counts WHERE dim = ? AND key = ?), 0)",
  args: [dim, key],
  read: asNumber,
});
const DEVICE_COUNT = "(SELECT value FROM change_counters WHERE name = 'device_count')";

/** exactTotal's counts as one value (FleetCounts.exactTotalSql): the same kept counts, read by the page's statement. */
function exactTotalSql(exact: ExactCount, keys: FleetKeys | null): TotalSql {
  switch (exact.kind) {
    case "all":
      return { sql: DEVICE_COUNT, args: [], read: asNumber };
    case "productType":
      return kept("productType", exact.id === null ? "none" : `v:${exact.id}`);
    case "app":
      return kept("app", `v:${exact.version}`);
    case "seen": {
      if (exact.seen === "never") return kept("seen", "none");
      if (exact.seen === "stale") {
        const never = kept("seen", "none");
        return {
          sql: `${DEVICE_COUNT} - (${SEEN_SINCE}) - ${never.sql}`,
          args: [...seenArgs(seenSince("7d")!), ...never.args],
          read: asNumber,
        };
      }
      return { sql: `(${SEEN_SINCE})`, args: seenArgs(seenSince(exact.seen)!), read: asNumber };
    }
    case "firmware": {
      const fw = firmwareCondition(exact.filter, keys!.defaultFirmware);
      if (keys!.current) {
        // The kept group counts as rows; keptFirmwareCount's arithmetic on them.
        return {
          sql: `(SELECT json_agg(json_build_array(dim, key, n)) FROM device_group_counts
            WHERE dim IN ('firmware', 'effective'))`,
          args: [],
          read: (v) => {
            const groups = groupCounts(
              ((v ?? []) as [string, string, number][]).map(([dim, key, n]) => ({ dim, key, n })),
            );
            return keptFirmwareTotal(fw, keys!.defaultFirmware, {
              custom: groups.firmware,
              effective: groups.effective,
            });
          },
        };
      }
      const sum = "(SELECT coalesce(sum(n), 0) FROM device_group_counts WHERE dim = 'firmware'";
      return fw.kind === "custom"
        ? { sql: `${sum} AND key <> 'none')`, args: [], read: asNumber }
        : fw.kind === "default"
        ? { sql: `${sum} AND key = 'none')`, args: [], read: asNumber }
        : {
          sql: `${sum} AND (key = ? OR (? = 1 AND key = 'none')))`,
          args: [`v:${fw.id}`, fw.orNoCustom ? 1 : 0],
          read: asNumber,
        };
    }
  }
}

export function postgresFleetCounts(): FleetCounts {
  return {
    /** From the kept counts. */
    *exactTotal(exact, _where, _args, keys) {
      switch (exact.kind) {
        case "all":
          return yield* deviceCount();
        case "productType":
          return yield* keptCount("productType", exact.id === null ? "none" : `v:${exact.id}`);
        case "app":
          return yield* keptCount("app", `v:${exact.version}`);
        case "seen":
          return yield* seenCount(exact.seen);
        case "firmware": {
          if (keys!.current) return yield* keptFirmwareCount(exact, keys!);
          const fw = firmwareCondition(exact.filter, keys!.defaultFirmware);
          const sum = "SELECT coalesce(sum(n), 0) AS n FROM device_group_counts WHERE dim = 'firmware'";
          const row = fw.kind === "custom"
            ? yield* one<{ n: number }>(`${sum} AND key <> 'none'`)
            : fw.kind === "default"
            ? yield* one<{ n: number }>(`${sum} AND key = 'none'`)
            : yield* one<{ n: number }>(
              `${sum} AND (key = ? OR (? = 1 AND key = 'none'))`,
              `v:${fw.id}`,
              fw.orNoCustom ? 1 : 0,
            );
          return Number(row!.n);
        }
      }
    },
    exactTotalSql,
    overview: overviewOf,
    // One statement, no write lock: it checks nothing before it deletes; a row a trigger upserts at the same moment is
    // either not deleted (its n changed) or made again by the upsert. The empty hours of check-ins older than
    // seenPruneBefore (one range of the primary key).
    pruneSeen: (at) =>
      unlocked(() =>
        run(
          "DELETE FROM device_group_counts WHERE dim = 'seen' AND key >= 'h:' AND key < ? AND n = 0",
          seenPruneBefore(at),
        )
      ),
  };
}
