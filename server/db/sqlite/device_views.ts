/** Fleet views on SQLite (CONTRACT §16): filtered, sorted pages, bulk changes and the overview's counts. */
import type { SQLInputValue } from "node:sqlite";
import type { DeviceBulkSet, DeviceFilter, Overview } from "../../../shared/schemas/device.ts";
import { now } from "../clock.ts";
import { InvalidError } from "../errors.ts";
import { devicePatchWrites } from "../rules/devices.ts";
import { appendAuditMany } from "./audit.ts";
import { auditEntries, noBulkDevice } from "../rules/bulk_changes.ts";
import {
  cancelledHeld,
  firmwareDistribution,
  groupCounts,
  heldByRollout,
  keptDistribution,
  overviewLists,
} from "../rules/fleet_overview.ts";
import {
  cappedTotal,
  type DeviceView,
  type ExactCount,
  exactCountOf,
  productTypeCondition,
  seenSince,
  seenSql,
  VIEW_COUNT_LIMIT,
} from "../rules/device_view.ts";
import { cursorPart, groupsFrom, keysetParts, keysetStep, type ViewCursor } from "../rules/view_cursor.ts";
import {
  firmwareCondition,
  firmwareInEffectSql,
  type FirmwareMode,
  type HoldingRolloutRow,
  keptFirmwareSql,
  keptFirmwareTotal,
} from "../rules/firmware_in_effect.ts";
import { groupSlices, GroupWalk, keptGroups, productTypeOrder } from "../rules/product_type_groups.ts";
import { likePattern } from "../rules/like.ts";
import { BUCKET, type KeysState, keysState, refreshDeviceKeys } from "./firmware_keys.ts";
import { type Db, firstMissingId, sql, transaction } from "./open.ts";
import { nextRevision } from "./revisions.ts";

/** The versions as the columns of migration 12 (schema.ts), kept from version_info by triggers, indexed. */
export const APP = "d.app";
export const OS = "d.os";
/** The state of the latest update report, as the expression index devices_update_state has it. */
const UPDATE_STATE = "json_extract(d.update_status, '$.state')";

const SORT_COLUMN = {
  deviceId: "d.device_id",
  productType: "d.product_type_id", // walked group by group in name order (listView)
  lastLoggedIn: "d.last_logged_in",
  updatedAt: "d.updated_at",
  createdAt: "d.created_at",
  app: APP,
} as const;

/** The WHERE clause of a filter (always something: `1` for none). */
export function whereOf(
  db: Db,
  filter: DeviceFilter,
  product: string,
): { where: string; args: SQLInputValue[]; firmware: FirmwareMode | null; keys: KeysState | null } {
  const parts: string[] = [];
  const args: SQLInputValue[] = [];
  const p = (v: string | number) => {
    args.push(v);
    return "?";
  };
  const q = filter.q?.trim();
  if (q) {
    parts.push("d.device_id LIKE ? ESCAPE '\\'");
    args.push(likePattern(q));
  }
  if (filter.productTypeId !== undefined) {
    const pt = productTypeCondition(filter.productTypeId);
    if (pt === null) parts.push("d.product_type_id IS NULL");
    else {
      parts.push("d.product_type_id = ?");
      args.push(pt);
    }
  }
  let firmware: FirmwareMode | null = null;
  let keys: KeysState | null = null;
  if (filter.firmware !== undefined) {
    keys = keysState(db, product);
    const fw = firmwareCondition(filter.firmware, keys.defaultFirmware);
    if (keys.current) {
      firmware = "kept";
      parts.push(keptFirmwareSql(fw, p).sql);
    } else if (fw.kind !== "custom" && keys.rollouts.length) {
      // Rollouts hold devices and the kept keys lag behind: the firmware in effect as config resolution decides it.
      firmware = "hashed";
      parts.push(
        firmwareInEffectSql(
          fw.kind === "default" ? "default" : { id: (fw as { id: string }).id },
          keys.rollouts,
          keys.defaultFirmware,
          p,
          BUCKET,
        ),
      );
    } else {
      firmware = "plain";
      if (fw.kind === "custom") parts.push("d.firmware_id IS NOT NULL");
      else if (fw.kind === "default") parts.push("d.firmware_id IS NULL");
      else {
        parts.push(fw.orNoCustom ? "(d.firmware_id = ? OR d.firmware_id IS NULL)" : "d.firmware_id = ?");
        args.push(fw.id);
      }
    }
  }
  if (filter.app !== undefined) {
    parts.push(`${APP} = ?`);
    args.push(filter.app);
  }
  if (filter.os !== undefined) {
    parts.push(`${OS} = ?`);
    args.push(filter.os);
  }
  if (filter.seen !== undefined) {
    parts.push(seenSql(filter.seen, (v) => {
      args.push(v);
      return "?";
    }));
  }
  if (filter.admission !== undefined) {
    parts.push("d.admission = ?");
    args.push(filter.admission);
  }
  if (filter.update !== undefined) {
    if (filter.update === "none") parts.push("d.update_status IS NULL");
    else {
      parts.push(`${UPDATE_STATE} = ?`);
      args.push(filter.update);
    }
  }
  return { where: parts.length ? parts.join(" AND ") : "1", args, firmware, keys };
}

/**
 * The device ids of one page of a view, in order, and the total (-1 when not counted). Every sort but productType is
 * one index walk `ORDER BY <column>, device_id`; productType walks the product types in name order, counting the
 * groups only as far as the page needs and reading only the groups it covers (productTypePage).
 */
export function viewIds(
  db: Db,
  view: DeviceView,
  page: number,
  perPage: number,
  product: string,
  count = true,
): { ids: string[]; total: number; exact: boolean } {
  const { where, args, firmware, keys } = whereOf(db, view.filter, product);
  const dir = view.order === "desc" ? "DESC" : "ASC";
  const offset = page * perPage;
  if (view.sort === "productType") {
    return productTypePage(db, view, { where, args, firmware, keys }, offset, perPage, count);
  }
  const column = SORT_COLUMN[view.sort];
  const tie = view.sort === "deviceId" ? "" : `, d.device_id ${dir}`;
  // A filter without an exact count reads on past the page (the same index walk) to count up to VIEW_COUNT_LIMIT more.
  // A firmware filter decided device by device (rollouts hold devices, the kept keys lag) is counted as a combination is.
  const exact = count && firmware !== "hashed" ? exactCountOf(view.filter) : null;
  const capped = count && exact === null;
  const rows = sql(
    db,
    `SELECT d.device_id FROM devices d${indexedBy(view)} WHERE ${where} ORDER BY ${column} ${dir}${tie}
     LIMIT ? OFFSET ?`,
  )
    .all(...args, capped ? perPage + VIEW_COUNT_LIMIT : perPage, offset) as { device_id: string }[];
  const ids = rows.slice(0, perPage).map((r) => r.device_id);
  if (!count) return { ids, total: -1, exact: true };
  if (ids.length === 0 && offset > 0) {
    // A page beyond the end: how many there are (fewer than the offset, so the count stops there).
    const { m } = sql(db, `SELECT COUNT(*) AS m FROM (SELECT 1 FROM devices d WHERE ${where} LIMIT ?)`)
      .get(...args, offset) as { m: number };
    return { ids, total: m, exact: true };
  }
  if (capped) return { ids, ...cappedTotal(offset, perPage, rows.length) };
  const ends = ids.length < perPage;
  return { ids, total: ends ? offset + ids.length : exactTotal(db, exact!, where, args, keys), exact: true };
}

/**
 * sort=productType: the product types in name order (productTypeOrder), each group read by the index
 * (product_type_id, device_id). Unfiltered or filtered by one product type alone, the groups' sizes are the kept
 * counts; any other filter walks the groups counting each only as far as the page and VIEW_COUNT_LIMIT need
 * (GroupWalk), so a page costs what the other sorts' pages cost, whatever the filter matches.
 */
function productTypePage(
  db: Db,
  view: DeviceView,
  filter: { where: string; args: SQLInputValue[]; firmware: FirmwareMode | null; keys: KeysState | null },
  offset: number,
  perPage: number,
  count: boolean,
): { ids: string[]; total: number; exact: boolean } {
  const { where, args } = filter;
  const types = sql(db, "SELECT id, name FROM product_types").all() as { id: string; name: string }[];
  const order = productTypeOrder(types, view.order);
  const dir = view.order === "desc" ? "DESC" : "ASC";
  // A check-in range (seen 24h or 7d) finds the group's matches in (product_type_id, last_logged_in, device_id),
  // covering, and sorts them (`+` keeps SQLite from walking (product_type_id, device_id) for the order instead and
  // visiting each device's row to test its check-in: 15 ms for a page at offset 975 of "no product type", 0.4 ms so).
  // With an app filter, (product_type_id, app, device_id, last_logged_in) gives both the order and the check-in.
  const f = view.filter;
  const sortMatches = f.seen !== undefined && f.seen !== "never" && f.app === undefined ? "+" : "";
  const read = (slices: { key: string | null; offset: number; limit: number }[]) => {
    const ids: string[] = [];
    for (const s of slices) {
      const rows = sql(
        db,
        `SELECT d.device_id FROM devices d WHERE ${where} AND d.product_type_id IS ?
         ORDER BY ${sortMatches}d.device_id ${dir} LIMIT ? OFFSET ?`,
      ).all(...args, s.key, s.limit, s.offset) as { device_id: string }[];
      ids.push(...rows.map((r) => r.device_id));
    }
    return ids;
  };
  const one = exactCountOf(view.filter);
  if (where === "1" || one?.kind === "productType") {
    const kept = groupCounts(
      sql(db, "SELECT dim, key, n FROM device_group_counts WHERE dim = 'productType'").all() as {
        dim: string;
        key: string;
        n: number;
      }[],
    ).productType;
    const { groups, total } = keptGroups(order, kept, one);
    return { ids: read(groupSlices(groups, offset, perPage)), total, exact: true };
  }
  const walk = new GroupWalk(order, offset, perPage, count);
  const countGroup = sql(
    db,
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM devices d WHERE ${where} AND d.product_type_id IS ? LIMIT ?)`,
  );
  for (let g = walk.next(); g !== null; g = walk.next()) {
    walk.counted((countGroup.get(...args, g.key, g.cap) as { n: number }).n);
  }
  const { slices, total, exact } = walk.result();
  const ids = read(slices);
  if (!count) return { ids, total: -1, exact: true };
  if (exact) return { ids, total, exact };
  // The walk stopped early: a filter with an exact count (one of firmware, app, seen) still answers it.
  // A firmware filter decided device by device (rollouts hold devices, the kept keys lag) has none.
  const exactKind = filter.firmware === "hashed" ? null : one;
  return exactKind
    ? { ids, total: exactTotal(db, exactKind, where, args, filter.keys), exact: true }
    : { ids, total, exact: false };
}

/** The time sorts' indexes, which carry the app and OS versions (migration 16). */
const TIME_SORT_INDEX: Partial<Record<DeviceView["sort"], string>> = {
  lastLoggedIn: "devices_last_logged_in",
  updatedAt: "devices_updated",
  createdAt: "devices_created",
};

/**
 * A version filter sorted by time walks the sort's index, checking the versions in it (a walk of at most the whole
 * covering index, a few ms at 100,000): SQLite's planner would rather read every match by the versions' index and
 * sort them all (8 ms for 6,700). Product type and firmware filters have indexes with each sort of their own.
 */
function indexedBy(view: DeviceView): string {
  const f = view.filter;
  const index = TIME_SORT_INDEX[view.sort];
  const versions = f.app !== undefined || f.os !== undefined;
  return index && versions && f.productTypeId === undefined && f.firmware === undefined ? ` INDEXED BY ${index}` : "";
}

const keptSum = (db: Db, dim: string, keyCondition: string, ...args: SQLInputValue[]) =>
  (sql(db, `SELECT coalesce(sum(n), 0) AS n FROM device_group_counts WHERE dim = ? AND ${keyCondition}`)
    .get(dim, ...args) as { n: number }).n;

/**
 * The exact total of a filter exactCountOf() names: the kept group counts, or (seen, and firmware before the keys are
 * current) one covering index range.
 */
function exactTotal(
  db: Db,
  exact: ExactCount,
  where: string,
  args: SQLInputValue[],
  keys: KeysState | null,
): number {
  switch (exact.kind) {
    case "all":
      return keptSum(db, "productType", "1");
    case "productType":
      return keptSum(db, "productType", "key = ?", exact.id === null ? "none" : `v:${exact.id}`);
    case "app":
      return keptSum(db, "app", "key = ?", `v:${exact.version}`);
    case "firmware":
      if (keys?.current) {
        const groups = groupCounts(
          sql(db, "SELECT dim, key, n FROM device_group_counts WHERE dim IN ('firmware', 'effective')").all() as never,
        );
        return keptFirmwareTotal(firmwareCondition(exact.filter, keys.defaultFirmware), keys.defaultFirmware, {
          custom: groups.firmware,
          effective: groups.effective,
        });
      }
      return (sql(db, `SELECT COUNT(*) AS n FROM devices d WHERE ${where}`).get(...args) as { n: number }).n;
    case "seen":
      return (sql(db, `SELECT COUNT(*) AS n FROM devices d WHERE ${where}`).get(...args) as { n: number }).n;
  }
}

/**
 * One export batch of a view: up to `limit` device ids after `after` (null: from the start) in the view's order, and
 * the cursor after the last (null: the view ended). Each part of the order is one index range from the cursor
 * (`(column, device_id) > (value, id)`), never an OFFSET.
 */
export function viewBatch(
  db: Db,
  view: DeviceView,
  after: ViewCursor | null,
  limit: number,
  product: string,
): { ids: string[]; next: ViewCursor | null } {
  const { where, args: filterArgs } = whereOf(db, view.filter, product);
  const dir = view.order === "desc" ? "DESC" : "ASC";
  const op = view.order === "desc" ? "<" : ">";
  const ids: string[] = [];
  let next: ViewCursor | null = null;
  const batch = (cond: string[], order: string, rest: number, key: string | null = null) => {
    const args = [...filterArgs];
    const values: Record<string, () => SQLInputValue> = {
      id: () => after!.deviceId,
      value: () => after!.value,
      key: () => key,
    };
    const sqlCond = cond.map((c) =>
      c.replace(/\$(value|id|key)\b/g, (_, k: string) => {
        args.push(values[k]());
        return "?";
      })
    );
    return sql(
      db,
      `SELECT d.device_id, ${SORT_COLUMN[view.sort]} AS v FROM devices d${indexedBy(view)} WHERE ${where}${
        sqlCond.map((c) => ` AND ${c}`).join("")
      } ORDER BY ${order} LIMIT ?`,
    ).all(...args, rest) as { device_id: string; v: string | null }[];
  };
  if (view.sort === "productType") {
    const types = sql(db, "SELECT id, name FROM product_types").all() as { id: string; name: string }[];
    for (const g of groupsFrom(productTypeOrder(types, view.order), after)) {
      const rest = limit - ids.length;
      if (rest <= 0) break;
      const cond = ["d.product_type_id IS $key"];
      if (g.resume) cond.push(`d.device_id ${op} $id`);
      for (const r of batch(cond, `d.device_id ${dir}`, rest, g.key)) {
        ids.push(r.device_id);
        next = { value: g.key, deviceId: r.device_id, group: g.group };
      }
    }
    return { ids, next: ids.length < limit ? null : next };
  }
  const step = { sort: view.sort, column: SORT_COLUMN[view.sort], dir, op, nulls: "" } as const;
  const parts = keysetParts(view.sort, view.order);
  const start = cursorPart(view.sort, after);
  for (const part of parts.slice(start === null ? 0 : parts.indexOf(start))) {
    const rest = limit - ids.length;
    if (rest <= 0) break;
    const { cond, order } = keysetStep(step, parts, part, after !== null && part === start);
    for (const r of batch(cond, order, rest)) {
      ids.push(r.device_id);
      next = { value: r.v ?? null, deviceId: r.device_id };
    }
  }
  return { ids, next: ids.length < limit ? null : next };
}

/** POST devices/bulk in one write transaction: checks like a patch, then set-based writes; any failure changes none. */
export function bulkDevices(
  db: Db,
  target: { deviceIds: string[] } | { filter: DeviceFilter },
  set: DeviceBulkSet,
  product: string,
): { updated: number; deviceIds: string[] } {
  return transaction(db, () => {
    let ids: string[];
    if ("deviceIds" in target) {
      const missing = sql(
        db,
        `SELECT j.value AS id FROM json_each(?) j LEFT JOIN devices d ON d.device_id = j.value
         WHERE d.device_id IS NULL ORDER BY j.key LIMIT 1`,
      ).get(JSON.stringify(target.deviceIds)) as { id: string } | undefined;
      if (missing) throw new InvalidError(noBulkDevice(missing.id));
      ids = target.deviceIds;
    } else {
      const { where, args } = whereOf(db, target.filter, product);
      ids = (sql(db, `SELECT d.device_id FROM devices d WHERE ${where} ORDER BY d.device_id`).all(...args) as {
        device_id: string;
      }[]).map((r) => r.device_id);
    }
    const exists = (table: "product_types" | "firmwares", id: string | null | undefined) =>
      id == null || firstMissingId(db, table, [id]) === null;
    // The same checks as a patch (no moduleIds: a product type change clears them, below).
    const changes = devicePatchWrites(set.productTypeId ?? null, set, {
      productTypeExists: exists("product_types", set.productTypeId),
      firmwareExists: exists("firmwares", set.firmware),
      missingTreatment: firstMissingId(db, "treatments", set.additionalTreatmentIds ?? []),
      missingModule: null,
      foreignModule: null,
    });
    if (ids.length === 0) return { updated: 0, deviceIds: [] };
    const list = JSON.stringify(ids);
    const IN = "device_id IN (SELECT value FROM json_each(?))";
    if (changes.productTypeId !== undefined) {
      sql(
        db,
        `DELETE FROM device_modules WHERE device_id IN
           (SELECT d.device_id FROM devices d WHERE d.device_id IN (SELECT value FROM json_each(?))
            AND d.product_type_id IS NOT ?)`,
      ).run(list, changes.productTypeId);
      sql(db, `UPDATE devices SET product_type_id = ? WHERE ${IN}`).run(changes.productTypeId, list);
    }
    if (changes.firmware !== undefined) {
      sql(db, `UPDATE devices SET firmware_id = ? WHERE ${IN}`).run(changes.firmware, list);
    }
    if (changes.additionalTreatmentIds !== undefined) {
      sql(db, `DELETE FROM device_treatments WHERE ${IN}`).run(list);
      sql(
        db,
        `INSERT INTO device_treatments (device_id, treatment_id, position)
         SELECT d.value, t.value, t.key FROM json_each(?) d, json_each(?) t`,
      ).run(list, JSON.stringify(changes.additionalTreatmentIds));
    }
    sql(db, `UPDATE devices SET updated_at = ?, revision = ? WHERE ${IN}`).run(now(), nextRevision(db), list);
    if (changes.productTypeId !== undefined || changes.firmware !== undefined) {
      refreshDeviceKeys(db, "d.device_id IN (SELECT value FROM json_each(?))", [list]);
    }
    // One entry per device, as its own change would have, in the same transaction (the last writes).
    appendAuditMany(db, auditEntries(ids, set));
    return { updated: ids.length, deviceIds: ids };
  });
}

const count = (db: Db, where: string, ...args: SQLInputValue[]) =>
  (sql(db, `SELECT COUNT(*) AS n FROM devices d WHERE ${where}`).get(...args) as { n: number }).n;

/** GET overview from count queries, each served by an index. */
export function overviewOf(db: Db, product: string): Overview {
  const total = (sql(db, "SELECT COUNT(*) AS n FROM devices INDEXED BY devices_order").get() as { n: number }).n;
  const seen24h = count(db, "d.last_logged_in >= ?", seenSince("24h")!);
  const seen7d = count(db, "d.last_logged_in >= ?", seenSince("7d")!);
  const never = count(db, "d.last_logged_in IS NULL");
  const pending = count(db, "d.admission = 'pending'");

  const types = sql(db, "SELECT id, name FROM product_types").all() as { id: string; name: string }[];
  const groups = groupCounts(
    sql(db, "SELECT dim, key, n FROM device_group_counts").all() as { dim: string; key: string; n: number }[],
  );
  const byType = groups.productType;
  const typeNames = new Map(types.map((t) => [t.id, t.name]));
  const productTypes = productTypeOrder(types, "asc")
    .map((id) => ({ _id: id, name: id === null ? null : typeNames.get(id)!, devices: byType.get(id) ?? 0 }))
    .filter((t) => t._id !== null || t.devices > 0);

  const keys = keysState(db, product);
  const byFirmware = keys.current
    ? keptDistribution(groups.effective, keys.defaultFirmware)
    : heldDistribution(db, keys, groups.firmware);
  const firmwareNames = new Map(
    (sql(db, "SELECT id, name FROM firmwares").all() as { id: string; name: string }[]).map((f) => [f.id, f.name]),
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
function heldDistribution(
  db: Db,
  keys: KeysState,
  custom: ReadonlyMap<string | null, number>,
): Map<string | null, number> {
  // The rollouts that decide some device's firmware, their devices from their kept counts less their pinned members
  // (counted from the custom devices, few, through rollout_devices' key).
  const rolloutRows = sql(
    db,
    `SELECT r.id, r.firmware_id, r.product_type_id, r.state, r.stages, r.stage, r.in_stage, r.installed
     FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
     WHERE r.state IN ('running', 'paused', 'finished') OR (r.state = 'cancelled' AND r.installed > 0)
     ORDER BY r.created_at DESC, r.id DESC`,
  ).all() as unknown as (HoldingRolloutRow & { in_stage: number; installed: number })[];
  const pinnedOf = sql(
    db,
    `SELECT COUNT(*) AS n FROM devices c INDEXED BY devices_custom_seen
       CROSS JOIN rollout_devices rd ON rd.rollout_id = ? AND rd.device_id = c.device_id
     WHERE c.firmware_id IS NOT NULL AND CASE WHEN ? THEN rd.state = 'installed' ELSE rd.bucket < ? END`,
  );
  const deciding = keys.rollouts;
  // A cancelled rollout's devices (those that installed it: few) are counted one by one.
  const installedOf = sql(
    db,
    `SELECT rd.device_id, d.product_type_id FROM rollout_devices rd JOIN devices d ON d.device_id = rd.device_id
     WHERE rd.rollout_id = ? AND rd.state = 'installed' AND d.firmware_id IS NULL`,
  );
  const installed = new Map(
    deciding.filter((d) => d.cancelled).map((d) => [
      d.id,
      (installedOf.all(d.id) as { device_id: string; product_type_id: string | null }[])
        .map((m) => ({ deviceId: m.device_id, productTypeId: m.product_type_id })),
    ]),
  );
  const installedBy = new Map([...installed].map(([id, list]) => [id, new Set(list.map((m) => m.deviceId))]));
  const held = deciding.map((d, i) => {
    const r = rolloutRows.find((x) => x.id === d.id)!;
    const devices = d.cancelled
      ? cancelledHeld(d, installed.get(d.id) ?? [], deciding.slice(0, i), installedBy)
      : heldByRollout({ ...r, custom: (pinnedOf.get(d.id, 0, d.percent) as { n: number }).n });
    return { firmwareId: d.firmwareId, devices };
  });
  return firmwareDistribution(custom, keys.defaultFirmware, held);
}

export function namesOf(db: Db) {
  const pairs = (table: string) =>
    new Map(
      (sql(db, `SELECT id, name FROM ${table}`).all() as { id: string; name: string }[]).map((r) => [r.id, r.name]),
    );
  return { productTypes: pairs("product_types"), firmwares: pairs("firmwares") };
}
