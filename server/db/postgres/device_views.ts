/** Fleet views on PostgreSQL (CONTRACT §16): the same decisions as SQLite's (rules/device_view.ts and its neighbours), its own SQL. */
import type { DeviceBulkSet, DeviceFilter, Overview } from "../../../shared/schemas/device.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
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
  nextHour,
  productTypeCondition,
  seenHourKey,
  seenPruneBefore,
  seenSince,
  seenSql,
  VIEW_COUNT_LIMIT,
} from "../rules/device_view.ts";
import { cursorPart, groupsFrom, keysetParts, keysetStep, type ViewCursor } from "../rules/view_cursor.ts";
import {
  firmwareCondition,
  firmwareInEffectSql,
  type FirmwareMode,
  holdingRollouts,
  keptFirmwareSql,
  keptFirmwareTotal,
} from "../rules/firmware_in_effect.ts";
import { groupSlices, GroupWalk, keptGroups, productTypeOrder } from "../rules/product_type_groups.ts";
import type { DeviceSeen } from "../../../shared/schemas/device.ts";
import { likePattern } from "../rules/like.ts";
import { BUCKET, type KeysState, keysState, keysStateOf, kickWhenBehind, refreshDeviceKeys } from "./firmware_keys.ts";
import { firstMissingId, nextRevision, type Tx } from "./open.ts";

/** The versions as the generated columns of migration 6 (schema.ts), indexed (collation "C", as SQLite compares). */
const APP = "d.app";
const OS = "d.os";
/** The state of the latest update report, as the expression index devices_update_state has it. */
const UPDATE_STATE = "(d.update_status::jsonb ->> 'state')";

const SORT_COLUMN = {
  deviceId: "d.device_id",
  productType: "d.product_type_id",
  lastLoggedIn: "d.last_logged_in",
  updatedAt: "d.updated_at",
  createdAt: "d.created_at",
  app: APP,
} as const;

type Arg = string | number | null;

/**
 * The WHERE clause of a filter; parameters numbered from $1 (`args` holds them). `fixed`: the indexed columns the
 * filter holds at one value (`= x` or `IS NULL`), best first, for viewIds' ORDER BY.
 */
async function whereOf(
  tx: Tx,
  filter: DeviceFilter,
  product: string,
): Promise<{ where: string; args: Arg[]; fixed: string[]; firmware: FirmwareMode | null; keys: KeysState | null }> {
  const fixed: string[] = [];
  const parts: string[] = [];
  const args: Arg[] = [];
  const p = (v: Arg) => {
    args.push(v);
    return `$${args.length}`;
  };
  const q = filter.q?.trim();
  if (q) parts.push(`ascii_lower(d.device_id) LIKE ascii_lower(${p(likePattern(q))}) ESCAPE '\\'`);
  if (filter.productTypeId !== undefined) {
    const pt = productTypeCondition(filter.productTypeId);
    parts.push(pt === null ? "d.product_type_id IS NULL" : `d.product_type_id = ${p(pt)}`);
    fixed.push("d.product_type_id");
  }
  let firmware: FirmwareMode | null = null;
  let keys: KeysState | null = null;
  if (filter.firmware !== undefined) {
    keys = await keysState(tx, product);
    kickWhenBehind(keys, product);
    const fw = firmwareCondition(filter.firmware, keys.defaultFirmware);
    if (keys.current) {
      firmware = "kept";
      const kept = keptFirmwareSql(fw, p);
      parts.push(kept.sql);
      if (kept.fixed) fixed.push(kept.fixed);
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
      if (fw.kind === "default") fixed.push("d.firmware_id");
    } else {
      firmware = "plain";
      if (fw.kind === "custom") parts.push("d.firmware_id IS NOT NULL");
      else if (fw.kind === "default") parts.push("d.firmware_id IS NULL");
      else {
        const id = p(fw.id);
        parts.push(fw.orNoCustom ? `(d.firmware_id = ${id} OR d.firmware_id IS NULL)` : `d.firmware_id = ${id}`);
      }
      if (fw.kind === "default" || (fw.kind === "firmware" && !fw.orNoCustom)) fixed.push("d.firmware_id");
    }
  }
  if (filter.app !== undefined) parts.push(`${APP} = ${p(filter.app)}`);
  if (filter.os !== undefined) parts.push(`${OS} = ${p(filter.os)}`);
  if (filter.seen !== undefined) {
    parts.push(seenSql(filter.seen, p));
    if (filter.seen === "never") fixed.push("d.last_logged_in");
  }
  if (filter.admission !== undefined) {
    parts.push(`d.admission = ${p(filter.admission)}`);
    fixed.push("d.admission");
  }
  if (filter.update !== undefined) {
    parts.push(filter.update === "none" ? "d.update_status IS NULL" : `${UPDATE_STATE} = ${p(filter.update)}`);
  }
  return { where: parts.length ? parts.join(" AND ") : "true", args, fixed, firmware, keys };
}

/**
 * The column a view's ORDER BY starts with, so that the planner sees the index (column, sort, device_id) as ordered
 * for it: a filter's `IS NULL` does not tell the planner the column is constant (an `=` does), so without it a
 * product type or firmware filter of "none" sorts every match instead of walking the index. The product type and
 * firmware columns lead an index for every sort; the others only (column, device_id).
 */
function leadingColumn(fixed: readonly string[], sort: DeviceView["sort"], dir: string): string {
  const col = fixed.find((c) =>
    sort === "deviceId" || c === "d.product_type_id" || c === "d.firmware_id" || c === "d.firmware_key"
  );
  if (col === undefined) return "";
  const nulls = col === "d.last_logged_in" ? (dir === "ASC" ? " NULLS FIRST" : " NULLS LAST") : "";
  return `${col} ${dir}${nulls}, `;
}

/** One page of a view's ids in order, and the total (-1 when not counted); see sqlite/device_views.ts. */
export async function viewIds(
  tx: Tx,
  view: DeviceView,
  page: number,
  perPage: number,
  product: string,
  count = true,
): Promise<{ ids: string[]; total: number; exact: boolean }> {
  const { where, args, fixed, firmware, keys } = await whereOf(tx, view.filter, product);
  const dir = view.order === "desc" ? "DESC" : "ASC";
  const offset = page * perPage;
  const n = args.length;
  if (view.sort === "productType") {
    return await productTypePage(tx, view, { where, args, firmware, keys }, offset, perPage, count);
  }
  const column = SORT_COLUMN[view.sort];
  // SQLite's order: NULLs first ascending, last descending (the indexes are built NULLS FIRST).
  const nulls = view.sort === "lastLoggedIn" || view.sort === "app"
    ? (dir === "ASC" ? " NULLS FIRST" : " NULLS LAST")
    : "";
  const tie = view.sort === "deviceId" ? "" : `, d.device_id ${dir}`;
  // A filter without an exact count reads on past the page (the same index walk) to count up to VIEW_COUNT_LIMIT more.
  // A firmware filter decided device by device (rollouts hold devices, the kept keys lag) is counted as a combination is.
  const exact = count && firmware !== "hashed" ? exactCountOf(view.filter) : null;
  const capped = count && exact === null;
  const rows = await tx.unsafe(
    `SELECT d.device_id FROM devices d WHERE ${where}
     ORDER BY ${leadingColumn(fixed, view.sort, dir)}${column} ${dir}${nulls}${tie}
     LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...args, capped ? perPage + VIEW_COUNT_LIMIT : perPage, offset],
  );
  const ids = rows.slice(0, perPage).map((r) => r.device_id as string);
  if (!count) return { ids, total: -1, exact: true };
  if (ids.length === 0 && offset > 0) {
    // A page beyond the end: how many there are (fewer than the offset, so the count stops there).
    const [{ m }] = await tx.unsafe(
      `SELECT count(*) AS m FROM (SELECT 1 FROM devices d WHERE ${where} LIMIT $${n + 1}) x`,
      [...args, offset],
    );
    return { ids, total: Number(m), exact: true };
  }
  if (capped) return { ids, ...cappedTotal(offset, perPage, rows.length) };
  const ends = ids.length < perPage;
  const total = ends ? offset + ids.length : await exactTotal(tx, exact!, keys);
  return { ids, total, exact: true };
}

/**
 * sort=productType: the product types in name order (productTypeOrder), each group read by the index
 * (product_type_id, device_id). Unfiltered or filtered by one product type alone, the groups' sizes are the kept
 * counts; any other filter walks the groups counting each only as far as the page and VIEW_COUNT_LIMIT need
 * (GroupWalk): each device counted is a row visit here, so a filter matching 25,000 devices no longer costs 25,000.
 */
async function productTypePage(
  tx: Tx,
  view: DeviceView,
  f: { where: string; args: Arg[]; firmware: FirmwareMode | null; keys: KeysState | null },
  offset: number,
  perPage: number,
  count: boolean,
): Promise<{ ids: string[]; total: number; exact: boolean }> {
  const { where, args } = f;
  const types = await tx`SELECT id, name FROM product_types` as unknown as { id: string; name: string }[];
  const order = productTypeOrder(types, view.order);
  const dir = view.order === "desc" ? "DESC" : "ASC";
  // A group's condition and parameters (the filter's, then its own); the ORDER BY starts with the column so that the
  // planner sees the (product_type_id, device_id) index as ordered for "none" too (IS NULL does not tell it the
  // column is constant).
  const inGroup = (key: string | null) => {
    const params = [...args];
    const p = (v: Arg) => {
      params.push(v);
      return `$${params.length}`;
    };
    return {
      cond: `${where} AND ${key === null ? "d.product_type_id IS NULL" : `d.product_type_id = ${p(key)}`}`,
      p,
      params,
    };
  };
  const read = async (slices: { key: string | null; offset: number; limit: number }[]) => {
    const ids: string[] = [];
    for (const s of slices) {
      const g = inGroup(s.key);
      const rows = await tx.unsafe(
        `SELECT d.device_id FROM devices d WHERE ${g.cond}
         ORDER BY d.product_type_id ${dir}, d.device_id ${dir} LIMIT ${g.p(s.limit)} OFFSET ${g.p(s.offset)}`,
        g.params,
      );
      ids.push(...rows.map((r) => r.device_id as string));
    }
    return ids;
  };
  const one = exactCountOf(view.filter);
  if (where === "true" || one?.kind === "productType") {
    const kept = groupCounts(
      await tx`SELECT dim, key, n FROM device_group_counts WHERE dim = 'productType'` as unknown as {
        dim: string;
        key: string;
        n: number;
      }[],
    ).productType;
    const { groups, total } = keptGroups(order, kept, one);
    return { ids: await read(groupSlices(groups, offset, perPage)), total, exact: true };
  }
  const walk = new GroupWalk(order, offset, perPage, count);
  for (let step = walk.next(); step !== null; step = walk.next()) {
    const g = inGroup(step.key);
    const [{ m }] = await tx.unsafe(
      `SELECT count(*) AS m FROM (SELECT 1 FROM devices d WHERE ${g.cond} LIMIT ${g.p(step.cap)}) x`,
      g.params,
    );
    walk.counted(Number(m));
  }
  const { slices, total, exact } = walk.result();
  const ids = await read(slices);
  if (!count) return { ids, total: -1, exact: true };
  if (exact) return { ids, total, exact };
  // The walk stopped early: a filter with an exact count (one of firmware, app, seen) still answers it.
  // A firmware filter decided device by device (rollouts hold devices, the kept keys lag) has none.
  const exactKind = f.firmware === "hashed" ? null : one;
  return exactKind
    ? { ids, total: await exactTotal(tx, exactKind, f.keys), exact: true }
    : { ids, total, exact: false };
}

/** DeviceStore.pruneCounts: the empty hours of check-ins older than seenPruneBefore (one range of the primary key). */
export async function pruneSeenCounts(tx: Tx, at: Date): Promise<number> {
  const rows = await tx`DELETE FROM device_group_counts
    WHERE dim = 'seen' AND key >= 'h:' AND key < ${seenPruneBefore(at)} AND n = 0`;
  return rows.count;
}

const keptCount = async (tx: Tx, dim: string, key: string) =>
  Number((await tx`SELECT n FROM device_group_counts WHERE dim = ${dim} AND key = ${key}`)[0]?.n ?? 0);

/**
 * How many devices checked in since the `seen` filter's time (or never): the hours kept by triggers (migration 10)
 * after the one `since` falls in, plus a count of that hour's devices from `since` on (one index range of at most an
 * hour's check-ins).
 */
async function seenCount(tx: Tx, seen: DeviceSeen): Promise<number> {
  if (seen === "stale") {
    // Every device less those seen within 7 days and those never seen: three kept counts.
    const [{ total }] = await tx`SELECT value AS total FROM change_counters WHERE name = 'device_count'`;
    return Number(total) - await seenCount(tx, "7d") - await seenCount(tx, "never");
  }
  const since = seenSince(seen);
  if (since === null) return await keptCount(tx, "seen", "none");
  const [{ n }] = await tx`SELECT
      (SELECT coalesce(sum(n), 0) FROM device_group_counts WHERE dim = 'seen' AND key > ${seenHourKey(since)}
        AND key < 'i')
      + (SELECT count(*) FROM devices WHERE last_logged_in >= ${since} AND last_logged_in < ${nextHour(since)}) AS n`;
  return Number(n);
}

/** The exact total of a filter exactCountOf() names, from the kept counts. */
async function exactTotal(tx: Tx, exact: ExactCount, keys: KeysState | null): Promise<number> {
  switch (exact.kind) {
    case "all":
      return Number((await tx`SELECT value FROM change_counters WHERE name = 'device_count'`)[0].value);
    case "productType":
      return await keptCount(tx, "productType", exact.id === null ? "none" : `v:${exact.id}`);
    case "app":
      return await keptCount(tx, "app", `v:${exact.version}`);
    case "seen":
      return await seenCount(tx, exact.seen);
    case "firmware": {
      const fw = firmwareCondition(exact.filter, keys!.defaultFirmware);
      if (keys!.current) {
        const groups = groupCounts(
          await tx`SELECT dim, key, n FROM device_group_counts WHERE dim IN ('firmware', 'effective')` as never,
        );
        return keptFirmwareTotal(fw, keys!.defaultFirmware, { custom: groups.firmware, effective: groups.effective });
      }
      const [{ n }] = fw.kind === "custom"
        ? await tx`SELECT coalesce(sum(n), 0) AS n FROM device_group_counts WHERE dim = 'firmware' AND key <> 'none'`
        : fw.kind === "default"
        ? await tx`SELECT coalesce(sum(n), 0) AS n FROM device_group_counts WHERE dim = 'firmware' AND key = 'none'`
        : await tx`SELECT coalesce(sum(n), 0) AS n FROM device_group_counts WHERE dim = 'firmware'
            AND (key = ${`v:${fw.id}`} OR (${fw.orNoCustom} AND key = 'none'))`;
      return Number(n);
    }
  }
}

/**
 * One export batch of a view: up to `limit` device ids after `after` (null: from the start) in the view's order, and
 * the cursor after the last (null: the view ended). Each part of the order is one index range from the cursor
 * (`(column, device_id) > (value, id)`), never an OFFSET.
 */
export async function viewBatch(
  tx: Tx,
  view: DeviceView,
  after: ViewCursor | null,
  limit: number,
  product: string,
): Promise<{ ids: string[]; next: ViewCursor | null }> {
  const { where, args: filterArgs, fixed } = await whereOf(tx, view.filter, product);
  const dir = view.order === "desc" ? "DESC" : "ASC";
  const op = view.order === "desc" ? "<" : ">";
  const ids: string[] = [];
  let next: ViewCursor | null = null;
  const batch = async (cond: string[], order: string, rest: number, key: string | null = null) => {
    const args = [...filterArgs];
    const p = (v: Arg) => {
      args.push(v);
      return `$${args.length}`;
    };
    const values: Record<string, () => Arg> = { id: () => after!.deviceId, value: () => after!.value, key: () => key };
    const sql = cond.map((c) => c.replace(/\$(value|id|key)\b/g, (_, k: string) => p(values[k]())));
    return await tx.unsafe(
      `SELECT d.device_id, ${SORT_COLUMN[view.sort]} AS v FROM devices d WHERE ${where}${
        sql.map((c) => ` AND ${c}`).join("")
      } ORDER BY ${order} LIMIT ${p(rest)}`,
      args,
    );
  };
  if (view.sort === "productType") {
    const types = await tx`SELECT id, name FROM product_types` as unknown as { id: string; name: string }[];
    for (const g of groupsFrom(productTypeOrder(types, view.order), after)) {
      const rest = limit - ids.length;
      if (rest <= 0) break;
      const cond = [g.key === null ? "d.product_type_id IS NULL" : "d.product_type_id = $key"];
      if (g.resume) cond.push(`d.device_id ${op} $id`);
      for (const r of await batch(cond, `d.product_type_id ${dir}, d.device_id ${dir}`, rest, g.key)) {
        ids.push(r.device_id as string);
        next = { value: g.key, deviceId: r.device_id as string, group: g.group };
      }
    }
    return { ids, next: ids.length < limit ? null : next };
  }
  const lead = leadingColumn(fixed, view.sort, dir);
  const nulls = dir === "ASC" ? " NULLS FIRST" : " NULLS LAST";
  const step = { sort: view.sort, column: SORT_COLUMN[view.sort], dir, op, nulls } as const;
  const parts = keysetParts(view.sort, view.order);
  const start = cursorPart(view.sort, after);
  for (const part of parts.slice(start === null ? 0 : parts.indexOf(start))) {
    const rest = limit - ids.length;
    if (rest <= 0) break;
    const { cond, order } = keysetStep(step, parts, part, after !== null && part === start);
    for (const r of await batch(cond, `${lead}${order}`, rest)) {
      ids.push(r.device_id as string);
      next = { value: (r.v as string | null) ?? null, deviceId: r.device_id as string };
    }
  }
  return { ids, next: ids.length < limit ? null : next };
}

/** POST devices/bulk in the caller's write transaction; see sqlite/device_views.ts. */
export async function bulkDevices(
  tx: Tx,
  target: { deviceIds: string[] } | { filter: DeviceFilter },
  set: DeviceBulkSet,
  product: string,
): Promise<{ updated: number; deviceIds: string[] }> {
  let ids: string[];
  if ("deviceIds" in target) {
    const found = new Set(
      (await tx`SELECT device_id FROM devices WHERE device_id = ANY(${target.deviceIds}::text[]) FOR UPDATE`).map((r) =>
        r.device_id as string
      ),
    );
    const missing = target.deviceIds.find((id) => !found.has(id));
    if (missing !== undefined) throw new InvalidError(noBulkDevice(missing));
    ids = target.deviceIds;
  } else {
    const { where, args } = await whereOf(tx, target.filter, product);
    ids = (await tx.unsafe(`SELECT d.device_id FROM devices d WHERE ${where} ORDER BY d.device_id FOR UPDATE`, args))
      .map((r) => r.device_id as string);
  }
  const exists = async (table: "product_types" | "firmwares", id: string | null | undefined) =>
    id == null || (await firstMissingId(tx, table, [id])) === null;
  const changes = devicePatchWrites(set.productTypeId ?? null, set, {
    productTypeExists: await exists("product_types", set.productTypeId),
    firmwareExists: await exists("firmwares", set.firmware),
    missingTreatment: await firstMissingId(tx, "treatments", set.additionalTreatmentIds ?? []),
    missingModule: null,
    foreignModule: null,
  });
  if (ids.length === 0) return { updated: 0, deviceIds: [] };
  if (changes.productTypeId !== undefined) {
    await tx`DELETE FROM device_modules WHERE device_id IN
      (SELECT device_id FROM devices WHERE device_id = ANY(${ids}::text[])
       AND product_type_id IS DISTINCT FROM ${changes.productTypeId})`;
    await tx`UPDATE devices SET product_type_id = ${changes.productTypeId} WHERE device_id = ANY(${ids}::text[])`;
  }
  if (changes.firmware !== undefined) {
    await tx`UPDATE devices SET firmware_id = ${changes.firmware} WHERE device_id = ANY(${ids}::text[])`;
  }
  if (changes.additionalTreatmentIds !== undefined) {
    await tx`DELETE FROM device_treatments WHERE device_id = ANY(${ids}::text[])`;
    if (changes.additionalTreatmentIds.length) {
      await tx`INSERT INTO device_treatments (device_id, treatment_id, position)
        SELECT d, t, n - 1 FROM unnest(${ids}::text[]) AS d,
          unnest(${changes.additionalTreatmentIds}::text[]) WITH ORDINALITY AS u(t, n)`;
    }
  }
  await tx`UPDATE devices SET updated_at = ${now()}, revision = ${await nextRevision(tx)}
    WHERE device_id = ANY(${ids}::text[])`;
  if (changes.productTypeId !== undefined || changes.firmware !== undefined) {
    await refreshDeviceKeys(tx, "d.device_id = ANY($1::text[])", [ids]);
  }
  // One entry per device, as its own change would have, in the same transaction (the last writes).
  await appendAuditMany(tx, auditEntries(ids, set));
  return { updated: ids.length, deviceIds: ids };
}

/**
 * GET overview in one round trip: the total from the device_count counter row, the check-in counts from the hours
 * kept by triggers (seenCount), the groups kept by triggers, and the names.
 */
export async function overviewOf(tx: Tx, product: string): Promise<Overview> {
  const seen = (s: "24h" | "7d") => [seenHourKey(seenSince(s)!), seenSince(s)!, nextHour(seenSince(s)!)];
  const [h24, s24, n24] = seen("24h");
  const [h7, s7, n7] = seen("7d");
  const [row] = await tx`SELECT
      (SELECT value FROM change_counters WHERE name = 'device_count') AS total,
      (SELECT coalesce(sum(n), 0) FROM device_group_counts WHERE dim = 'seen' AND key > ${h24} AND key < 'i')
        + (SELECT count(*) FROM devices WHERE last_logged_in >= ${s24} AND last_logged_in < ${n24}) AS seen24h,
      (SELECT coalesce(sum(n), 0) FROM device_group_counts WHERE dim = 'seen' AND key > ${h7} AND key < 'i')
        + (SELECT count(*) FROM devices WHERE last_logged_in >= ${s7} AND last_logged_in < ${n7}) AS seen7d,
      (SELECT coalesce(sum(n), 0) FROM device_group_counts WHERE dim = 'seen' AND key = 'none') AS never,
      (SELECT count(*) FROM devices WHERE admission = 'pending') AS pending,
      (SELECT json_agg(json_build_array(id, name)) FROM product_types) AS types,
      (SELECT json_agg(json_build_array(dim, key, n)) FROM device_group_counts WHERE dim <> 'seen') AS groups,
      (SELECT default_firmware FROM device_types WHERE name = ${deviceTypeName(product)}) AS default_firmware,
      (SELECT generation FROM firmware_keys) AS generation,
      (SELECT kept FROM firmware_keys) AS kept,
      (SELECT json_agg(json_build_array(id, name)) FROM firmwares) AS firmwares,
      (SELECT json_agg(json_build_array(r.id, r.firmware_id, r.product_type_id, r.state, r.stages, r.stage, r.in_stage,
          r.installed) ORDER BY r.created_at DESC, r.id DESC)
        FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
        WHERE r.state IN ('running', 'paused', 'finished')
          OR (r.state = 'cancelled' AND r.installed > 0)) AS rollouts`;
  const total = Number(row.total);
  const [seen24h, seen7d, never] = [Number(row.seen24h), Number(row.seen7d), Number(row.never)];
  const types = ((row.types ?? []) as [string, string][]).map(([id, name]) => ({ id, name }));
  const groups = groupCounts(
    ((row.groups ?? []) as [string, string, number][]).map(([dim, key, n]) => ({ dim, key, n })),
  );
  const byType = groups.productType;
  const typeNames = new Map(types.map((t) => [t.id, t.name]));
  const productTypes = productTypeOrder(types, "asc")
    .map((id) => ({ _id: id, name: id === null ? null : typeNames.get(id)!, devices: byType.get(id) ?? 0 }))
    .filter((t) => t._id !== null || t.devices > 0);

  const defaultFirmware = (row.default_firmware as string | null) ?? null;
  // The rollouts that decide some device's firmware, their devices from their kept counts less their pinned members
  // (counted from the custom devices, few, through rollout_devices' key).
  const rolloutRows =
    ((row.rollouts ?? []) as [string, string, string | null, string, string, number, number, number][])
      .map(([id, firmware_id, product_type_id, state, stages, stage, in_stage, installed]) => ({
        id,
        firmware_id,
        product_type_id,
        state,
        stages,
        stage,
        in_stage,
        installed,
      }));
  const keys = keysStateOf(Number(row.generation), row.kept ?? null, defaultFirmware, holdingRollouts(rolloutRows));
  kickWhenBehind(keys, product);
  const byFirmware = keys.current
    ? keptDistribution(groups.effective, defaultFirmware)
    : await heldDistribution(tx, keys, rolloutRows, groups.firmware);
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
async function heldDistribution(
  tx: Tx,
  keys: KeysState,
  rolloutRows: { id: string; state: string; in_stage: number; installed: number }[],
  custom: ReadonlyMap<string | null, number>,
): Promise<Map<string | null, number>> {
  const deciding = keys.rollouts;
  const pinned = new Map<string, number>();
  if (deciding.length) {
    const rows = await tx`SELECT rd.rollout_id, count(*) AS n
      FROM (SELECT device_id FROM devices WHERE firmware_id IS NOT NULL OFFSET 0) c
      JOIN rollout_devices rd ON rd.device_id = c.device_id AND rd.rollout_id = ANY(${
      deciding.map((r) => r.id)
    }::text[])
      JOIN rollouts r ON r.id = rd.rollout_id
      WHERE CASE WHEN r.state = 'cancelled' THEN rd.state = 'installed' ELSE rd.bucket < r.stage_percent END
      GROUP BY rd.rollout_id`;
    for (const r of rows) pinned.set(r.rollout_id as string, Number(r.n));
  }
  // A cancelled rollout's devices (those that installed it: few) are counted one by one.
  const cancelled = deciding.filter((d) => d.cancelled).map((d) => d.id);
  const installed = new Map<string, { deviceId: string; productTypeId: string | null }[]>();
  if (cancelled.length) {
    const rows = await tx`SELECT rd.rollout_id, rd.device_id, d.product_type_id FROM rollout_devices rd
      JOIN devices d ON d.device_id = rd.device_id
      WHERE rd.rollout_id = ANY(${cancelled}::text[]) AND rd.state = 'installed' AND d.firmware_id IS NULL`;
    for (const r of rows) {
      const list = installed.get(r.rollout_id as string) ?? [];
      list.push({ deviceId: r.device_id as string, productTypeId: (r.product_type_id as string | null) ?? null });
      installed.set(r.rollout_id as string, list);
    }
  }
  const installedBy = new Map([...installed].map(([id, list]) => [id, new Set(list.map((m) => m.deviceId))]));
  const held = deciding.map((d, i) => {
    const r = rolloutRows.find((x) => x.id === d.id)!;
    const devices = d.cancelled
      ? cancelledHeld(d, installed.get(d.id) ?? [], deciding.slice(0, i), installedBy)
      : heldByRollout({ ...r, custom: pinned.get(d.id) ?? 0 });
    return { firmwareId: d.firmwareId, devices };
  });
  return firmwareDistribution(custom, keys.defaultFirmware, held);
}

export async function namesOf(tx: Tx) {
  const pairs = async (table: string) =>
    new Map((await tx.unsafe(`SELECT id, name FROM ${table}`)).map((r) => [r.id as string, r.name as string]));
  return { productTypes: await pairs("product_types"), firmwares: await pairs("firmwares") };
}
