/**
 * Fleet views (docs/REQUIREMENTS.md §16): filtered, sorted pages, export batches and bulk changes, one SQL for both engines but
 * for the index steering each planner needs (SQLite: INDEXED BY and a `+` that keeps an index from being used;
 * PostgreSQL: an ORDER BY that starts with the column a filter holds at one value, and NULLS FIRST/LAST as SQLite
 * orders). What the engines count differently is FleetCounts' (fleet_counts.ts).
 */
import type { DeviceBulkSet, DeviceFilter } from "../../../shared/schemas/device.ts";
import { now } from "../clock.ts";
import { InvalidError } from "../errors.ts";
import { devicePatchWrites } from "../rules/devices.ts";
import { auditEntries, noBulkDevice } from "../rules/bulk_changes.ts";
import { groupCounts } from "../rules/fleet_overview.ts";
import { requireReleasable } from "./firmwares.ts";
import {
  cappedTotal,
  type DeviceView,
  type ExactCount,
  exactCountOf,
  productTypeCondition,
  seenExactSql,
  seenSql,
  VIEW_COUNT_LIMIT,
} from "../rules/device_view.ts";
import { cursorPart, groupsFrom, keysetParts, keysetStep, type ViewCursor } from "../rules/view_cursor.ts";
import {
  firmwareCondition,
  firmwareInEffectSql,
  type FirmwareMode,
  keptFirmwareSql,
} from "../rules/firmware_in_effect.ts";
import { groupSlices, GroupWalk, keptGroups, productTypeOrder } from "../rules/product_type_groups.ts";
import { likePattern } from "../rules/like.ts";
import { all, type Dialect, dialect, firstMissingId, nextRevision, one, type Param, type Q, run } from "../runner.ts";
import { appendAuditMany } from "./audit.ts";
import { keysStateOfText, refreshDeviceKeys } from "./firmware_keys.ts";
import { jsonField, likeAscii, listRows, positioned, same } from "./dialect_sql.ts";
import { type FleetCounts, type FleetKeys, keysInForce } from "./fleet_counts.ts";

/** The versions as the columns kept from version_info by triggers, indexed (server/db/migrations/). */
const APP = "d.app";
const OS = "d.os";

const SORT_COLUMN = {
  deviceId: "d.device_id",
  productType: "d.product_type_id", // walked group by group in name order (productTypePage)
  lastLoggedIn: "s.last_logged_in", // device_seen, the narrow table (viewFrom)
  updatedAt: "d.updated_at",
  createdAt: "d.created_at",
  app: APP,
} as const;

/** A filter as SQL over alias d. */
export interface ViewWhere {
  where: string;
  args: Param[];
  /** The indexed columns the filter holds at one value (`= x` or `IS NULL`), best first (PostgreSQL's ORDER BY). */
  fixed: string[];
  firmware: FirmwareMode | null;
  keys: FleetKeys | null;
  /** The same filter over the narrow table `s` (device_seen) joined to `d` where it reads more (the sort by last seen). */
  narrow: { where: string; args: Param[]; fixed: string[]; joined: boolean };
}

/**
 * The columns device_seen copies from devices (migrations: PostgreSQL 18, SQLite 23), read from `s` in the sort by
 * last seen so that its indexes serve the filters; devices is joined only for what it alone holds.
 */
const COPIED = /\bd\.(device_id|product_type_id|firmware_key|firmware_id|app|os)\b/g;
const onNarrow = (sql: string) => sql.replace(COPIED, "s.$1");
const readsDevices = (sql: string) => /\bd\./.test(sql);

/** The WHERE clause of a filter (always something: the engine's true for none). */
/**
 * PostgreSQL: the texts a page's statement is built from (the keys state, KEYS_STATE_SQL; the product types, TYPES_SQL)
 * as last read, given instead of reading them first (stores/device_page.ts: the statement reads them again).
 */
export interface KnownTexts {
  keys?: string;
  types?: string;
}

function* whereOf(filter: DeviceFilter, product: string, known?: KnownTexts): Q<ViewWhere> {
  const d = yield* dialect();
  const fixed: string[] = [];
  // Each part with its parameters; the seen filter has a form of its own on the narrow table.
  const parts: { sql: string; args: Param[]; narrow?: { sql: string; args: Param[] } }[] = [];
  let args: Param[] = [];
  const p = (v: string | number) => {
    args.push(v);
    return "?";
  };
  const part = (sql: string) => {
    parts.push({ sql, args });
    args = [];
  };
  const q = filter.q?.trim();
  if (q) {
    args.push(likePattern(q));
    part(likeAscii(d, "d.device_id"));
  }
  if (filter.productTypeId !== undefined) {
    const pt = productTypeCondition(filter.productTypeId);
    part(pt === null ? "d.product_type_id IS NULL" : `d.product_type_id = ${p(pt)}`);
    fixed.push("d.product_type_id");
  }
  let firmware: FirmwareMode | null = null;
  let keys: FleetKeys | null = null;
  if (filter.firmware !== undefined) {
    keys = known?.keys !== undefined ? keysStateOfText(known.keys) : yield* keysInForce(product);
    const fw = firmwareCondition(filter.firmware, keys.defaultFirmware);
    if (keys.current) {
      firmware = "kept";
      const kept = keptFirmwareSql(fw, p);
      part(kept.sql);
      if (kept.fixed) fixed.push(kept.fixed);
    } else if (fw.kind !== "custom" && keys.rollouts.length) {
      // Rollouts hold devices and the kept keys lag behind: the firmware in effect as config resolution decides it.
      firmware = "hashed";
      part(
        firmwareInEffectSql(
          fw.kind === "default" ? "default" : { id: (fw as { id: string }).id },
          keys.rollouts,
          keys.defaultFirmware,
          p,
          d.bucket,
        ),
      );
      if (fw.kind === "default") fixed.push("d.firmware_id");
    } else {
      firmware = "plain";
      if (fw.kind === "custom") part("d.firmware_id IS NOT NULL");
      else if (fw.kind === "default") part("d.firmware_id IS NULL");
      else {
        args.push(fw.id);
        part(fw.orNoCustom ? "(d.firmware_id = ? OR d.firmware_id IS NULL)" : "d.firmware_id = ?");
      }
      if (fw.kind === "default" || (fw.kind === "firmware" && !fw.orNoCustom)) fixed.push("d.firmware_id");
    }
  }
  if (filter.app !== undefined) part(`${APP} = ${p(filter.app)}`);
  if (filter.os !== undefined) part(`${OS} = ${p(filter.os)}`);
  if (filter.seen !== undefined) {
    const at = new Date();
    const exact = seenExactSql(filter.seen, p, at);
    const exactArgs = args;
    args = [];
    part(seenSql(filter.seen, p, at));
    parts[parts.length - 1].narrow = { sql: exact, args: exactArgs };
    if (filter.seen === "never") fixed.push("d.seen_hour");
  }
  if (filter.admission !== undefined) {
    part(`d.admission = ${p(filter.admission)}`);
    fixed.push("d.admission");
  }
  if (filter.update !== undefined) {
    // The state of the latest update report, as the expression index devices_update_state has it.
    if (filter.update === "none") part("d.update_status IS NULL");
    else part(`(${jsonField(d, "d.update_status", "state")}) = ${p(filter.update)}`);
  }
  const narrowParts = parts.map((x) => x.narrow ?? { sql: onNarrow(x.sql), args: x.args });
  const narrowWhere = narrowParts.length ? narrowParts.map((x) => x.sql).join(" AND ") : noFilter(d);
  return {
    where: parts.length ? parts.map((x) => x.sql).join(" AND ") : noFilter(d),
    args: parts.flatMap((x) => x.args),
    fixed,
    firmware,
    keys,
    narrow: {
      where: narrowWhere,
      args: narrowParts.flatMap((x) => x.args),
      fixed: fixed.map((c) => c === "d.seen_hour" ? "s.last_logged_in" : onNarrow(c)),
      joined: readsDevices(narrowWhere),
    },
  };
}

const noFilter = (d: Dialect) => d.engine === "sqlite" ? "1" : "true";

/**
 * PostgreSQL: the column a view's ORDER BY starts with, so that the planner sees the index (column, sort, device_id)
 * as ordered for it: a filter's `IS NULL` does not tell the planner the column is constant (an `=` does), so without
 * it a product type or firmware filter of "none" sorts every match instead of walking the index. The product type and
 * firmware columns lead an index for every sort; the others only (column, device_id). SQLite needs none.
 */
function leadingColumn(d: Dialect, fixed: readonly string[], sort: DeviceView["sort"], dir: string): string {
  if (d.engine === "sqlite") return "";
  const col = fixed.find((c) => sort === "deviceId" || /^[ds]\.(product_type_id|firmware_id|firmware_key)$/.test(c));
  if (col === undefined) return "";
  const nulls = col === "d.seen_hour" ? (dir === "ASC" ? " NULLS FIRST" : " NULLS LAST") : "";
  return `${col} ${dir}${nulls}, `;
}

/** SQLite's order of a sort on a column that may be missing (NULLs first ascending, last descending), spelled out. */
const nullsAsSqlite = (d: Dialect, dir: string) =>
  d.engine === "sqlite" ? "" : dir === "ASC" ? " NULLS FIRST" : " NULLS LAST";

/** The time sorts' indexes, which carry the app and OS versions. */
const TIME_SORT_INDEX: Partial<Record<DeviceView["sort"], string>> = {
  lastLoggedIn: "device_seen_last_logged_in",
  updatedAt: "devices_updated",
  createdAt: "devices_created",
};

/**
 * SQLite: a version filter sorted by time walks the sort's index, checking the versions in it (a walk of at most the
 * whole covering index, a few ms at 100,000): SQLite's planner would rather read every match by the versions' index
 * and sort them all (8 ms for 6,700). Product type and firmware filters have indexes with each sort of their own.
 */
function indexedBy(d: Dialect, view: DeviceView): string {
  if (d.engine !== "sqlite") return "";
  const f = view.filter;
  const index = TIME_SORT_INDEX[view.sort];
  const versions = f.app !== undefined || f.os !== undefined;
  return index && versions && f.productTypeId === undefined && f.firmware === undefined ? ` INDEXED BY ${index}` : "";
}

/**
 * The rows a view walks, as `FROM …` and the condition that joins them: devices `d`, or for the sort by last seen the
 * narrow table `s` (device_seen: the exact time, its indexes and copies of the columns its filters read), joined to
 * devices only when the filter reads more (CROSS JOIN: SQLite walks `s` first, in the sort's order).
 */
function viewFrom(d: Dialect, view: DeviceView, f: ViewWhere): { from: string; where: string; args: Param[] } {
  if (view.sort !== "lastLoggedIn") return { from: `devices d${indexedBy(d, view)}`, where: f.where, args: f.args };
  const n = f.narrow;
  const narrow = `device_seen s${indexedBy(d, view)}`;
  return n.joined
    ? { from: `${narrow} CROSS JOIN devices d`, where: `d.device_id = s.device_id AND ${n.where}`, args: n.args }
    : { from: narrow, where: n.where, args: n.args };
}

/** The statement of a page of a view sorted by anything but productType (viewIds), and how to read its rows. */
export interface PagePlan {
  filter: ViewWhere;
  /** `SELECT device_id ...`: the page's ids in order, and when `capped` up to VIEW_COUNT_LIMIT more. */
  sql: string;
  args: Param[];
  offset: number;
  capped: boolean;
  /** The filter's exact count when the page does not show the end (null: capped, or not counted). */
  exact: ExactCount | null;
}

/** The one index walk of a page sorted by anything but productType: `ORDER BY <column>, device_id`. */
export function* pagePlan(
  view: DeviceView,
  page: number,
  perPage: number,
  product: string,
  count: boolean,
  known?: KnownTexts,
): Q<PagePlan> {
  const d = yield* dialect();
  const filter = yield* whereOf(view.filter, product, known);
  const { fixed, firmware } = filter;
  const dir = view.order === "desc" ? "DESC" : "ASC";
  const offset = page * perPage;
  const column = SORT_COLUMN[view.sort];
  const nulls = view.sort === "lastLoggedIn" || view.sort === "app" ? nullsAsSqlite(d, dir) : "";
  const seenSort = view.sort === "lastLoggedIn";
  const tie = view.sort === "deviceId" ? "" : `, ${seenSort ? "s" : "d"}.device_id ${dir}`;
  const walk = viewFrom(d, view, filter);
  // A filter without an exact count reads on past the page (the same index walk) to count up to VIEW_COUNT_LIMIT more.
  // A firmware filter decided device by device (rollouts hold devices, the kept keys lag) is counted as a combination is.
  const exact = count && firmware !== "hashed" ? exactCountOf(view.filter) : null;
  const capped = count && exact === null;
  const lead = leadingColumn(d, seenSort ? filter.narrow.fixed : fixed, view.sort, dir);
  return {
    filter,
    sql: `SELECT ${seenSort ? "s" : "d"}.device_id FROM ${walk.from} WHERE ${walk.where}
     ORDER BY ${lead}${column} ${dir}${nulls}${tie} LIMIT ? OFFSET ?`,
    args: [...walk.args, capped ? perPage + VIEW_COUNT_LIMIT : perPage, offset],
    offset,
    capped,
    exact,
  };
}

/**
 * The device ids of one page of a view, in order, and the total (-1 when not counted). Every sort but productType is
 * one index walk `ORDER BY <column>, device_id`; productType walks the product types in name order, counting the
 * groups only as far as the page needs and reading only the groups it covers (productTypePage).
 */
export function* viewIds(
  counts: FleetCounts,
  view: DeviceView,
  page: number,
  perPage: number,
  product: string,
  count = true,
): Q<{ ids: string[]; total: number; exact: boolean }> {
  if (view.sort === "productType") {
    const filter = yield* whereOf(view.filter, product);
    return yield* productTypePage(counts, view, filter, page * perPage, perPage, count);
  }
  const plan = yield* pagePlan(view, page, perPage, product, count);
  const { filter: { where, args, keys }, offset, capped, exact } = plan;
  const rows = yield* all<{ device_id: string }>(plan.sql, ...plan.args);
  const ids = rows.slice(0, perPage).map((r) => r.device_id);
  if (!count) return { ids, total: -1, exact: true };
  if (ids.length === 0 && offset > 0) {
    // A page beyond the end: how many there are (fewer than the offset, so the count stops there).
    const { m } = (yield* one<{ m: number }>(
      `SELECT count(*) AS m FROM (SELECT 1 FROM devices d WHERE ${where} LIMIT ?) x`,
      ...args,
      offset,
    ))!;
    return { ids, total: Number(m), exact: true };
  }
  if (capped) return { ids, ...cappedTotal(offset, perPage, rows.length) };
  const ends = ids.length < perPage;
  return { ids, total: ends ? offset + ids.length : yield* counts.exactTotal(exact!, where, args, keys), exact: true };
}

/** A product-type group of a view: its condition, parameters and order. */
function inGroup(
  d: Dialect,
  f: ViewWhere,
  key: string | null,
  dir: string,
  sortMatches: string,
): { cond: string; args: Param[]; order: string } {
  if (d.engine === "sqlite") {
    return {
      cond: `${f.where} AND d.product_type_id IS ?`,
      args: [...f.args, key],
      order: `${sortMatches}d.device_id ${dir}`,
    };
  }
  // The ORDER BY starts with the column so that the planner sees the (product_type_id, device_id) index as ordered
  // for "none" too (IS NULL does not tell it the column is constant).
  return {
    cond: `${f.where} AND ${key === null ? "d.product_type_id IS NULL" : "d.product_type_id = ?"}`,
    args: key === null ? [...f.args] : [...f.args, key],
    order: `d.product_type_id ${dir}, d.device_id ${dir}`,
  };
}

/**
 * PostgreSQL, sort=productType under a filter other than one product type alone (productTypePage's GroupWalk) as one
 * statement's CTEs: each group in productTypeOrder read in order by (product_type_id, device_id) up to what the walk
 * still needs (`need` less the groups before; a group after the need is met is not read: CASE evaluates its subquery
 * only then), their ids concatenated into `w.a`, the view's first `need` ids. `types`: the product types' text the order
 * was built from (TYPES_SQL), for the statement to read again. `groupsAtMost`: only the first groups (a statement of
 * fewer parts plans faster; its answer is the walk's when those groups fill the need). Null for the views
 * productTypePage answers from the kept counts.
 */
export function* groupWalkPlan(
  view: DeviceView,
  page: number,
  perPage: number,
  product: string,
  count: boolean,
  known?: KnownTexts,
  groupsAtMost?: number,
): Q<GroupWalkPlan | null> {
  const d = yield* dialect();
  const filter = yield* whereOf(view.filter, product, known);
  const single = exactCountOf(view.filter);
  if (filter.where === noFilter(d) || single?.kind === "productType") return null;
  const types = known?.types ?? (yield* one<{ types: string }>(`SELECT ${TYPES_SQL} AS types`))!.types;
  const order = productTypeOrder(
    (JSON.parse(types) as [string, string][] | null ?? []).map(([id, name]) => ({ id, name })),
    view.order,
  );
  const dir = view.order === "desc" ? "DESC" : "ASC";
  const offset = page * perPage;
  // A filter with an exact count (not one decided device by device) takes its total from it: the walk counts only up to
  // the page's end, not VIEW_COUNT_LIMIT past it.
  const exact = count && filter.firmware !== "hashed" ? single : null;
  const need = new GroupWalk(order, offset, perPage, count && exact === null).need;
  const args: Param[] = [];
  const p = (...v: Param[]) => (args.push(...v), "?");
  const walked = groupsAtMost === undefined ? order : order.slice(0, groupsAtMost);
  const groups = walked.map((key) => inGroup(d, filter, key, dir, ""));
  // c<i>.n: the matches of the groups up to i counted, each group only as far as `need` less those before (its
  // count a LIMIT-ed index range in any order, as GroupWalk's).
  const ctes = groups.map((g, i) => {
    const counted = (limit: string) =>
      `(SELECT count(*) FROM (SELECT 1 FROM devices d WHERE ${g.cond} LIMIT ${limit}) x)`;
    if (i === 0) return `c0 AS MATERIALIZED (SELECT ${counted((args.push(...g.args), p(need)))} AS n)`;
    const before = `c${i - 1}.n`;
    const stop = p(need);
    args.push(...g.args);
    return `c${i} AS MATERIALIZED (SELECT ${before} + CASE WHEN ${before} >= ${stop} THEN 0
      ELSE ${counted(`${p(need)} - ${before}`)} END AS n FROM c${i - 1})`;
  });
  // The page's slice of each group it covers (groupSlices), read in the group's order; the text built left to right,
  // as its `?`s bind.
  const slices = groups.map((g, i) => {
    const before = i === 0 ? "0" : `c${i - 1}.n`;
    const upTo = () => `least(${p(offset + perPage)}::bigint, c${i}.n)`;
    const start = () => `greatest(${p(offset)}::bigint, ${before})`;
    let text = `CASE WHEN ${upTo()} > ${start()} THEN `;
    args.push(...g.args);
    text += `ARRAY(SELECT d.device_id FROM devices d WHERE ${g.cond} ORDER BY ${g.order} LIMIT ${upTo()} - ${start()}`;
    text += ` OFFSET ${start()} - ${before}) ELSE '{}'::text[] END`;
    return text;
  });
  return {
    filter,
    with: `${ctes.join(",\n")}, w AS MATERIALIZED (SELECT ${slices.join(" || ")} AS a, c${groups.length - 1}.n AS got,
      ARRAY[${groups.map((_, i) => `c${i}.n`).join(", ")}]::bigint[] AS ns
      FROM ${groups.map((_, i) => `c${i}`).join(", ")})`,
    args,
    need,
    exact,
    types,
    complete: walked.length === order.length,
  };
}

/** groupWalkPlan's statement parts. */
export interface GroupWalkPlan {
  filter: ViewWhere;
  /** The CTEs; `w.a` the ids, `w.got` the matches counted, `w.ns` the count after each group walked (cumulative). */
  with: string;
  args: Param[];
  need: number;
  exact: ExactCount | null;
  types: string;
  /** Every group walked: false when groupsAtMost left some out (the walk is the page's only if `w.got` ≥ need). */
  complete: boolean;
}

/** The product types as one text (id, name), read again by the statement built from them (groupWalkPlan). */
export const TYPES_SQL = "(SELECT json_agg(json_build_array(id, name) ORDER BY id)::text FROM product_types)";

/**
 * sort=productType: the product types in name order (productTypeOrder), each group read by the index
 * (product_type_id, device_id). Unfiltered or filtered by one product type alone, the groups' sizes are the kept
 * counts; any other filter walks the groups counting each only as far as the page and VIEW_COUNT_LIMIT need
 * (GroupWalk), so a page costs what the other sorts' pages cost, whatever the filter matches.
 */
function* productTypePage(
  counts: FleetCounts,
  view: DeviceView,
  filter: ViewWhere,
  offset: number,
  perPage: number,
  count: boolean,
): Q<{ ids: string[]; total: number; exact: boolean }> {
  const d = yield* dialect();
  const types = yield* all<{ id: string; name: string }>("SELECT id, name FROM product_types");
  const order = productTypeOrder(types, view.order);
  const dir = view.order === "desc" ? "DESC" : "ASC";
  // SQLite: a check-in range (seen 24h or 7d) finds the group's matches in (product_type_id, seen_hour,
  // device_id), covering, and sorts them (`+` keeps SQLite from walking (product_type_id, device_id) for the order
  // instead and visiting each device's row to test its check-in: 15 ms for a page at offset 975 of "no product type",
  // 0.4 ms so). With an app filter, (product_type_id, app, device_id, seen_hour) gives both.
  const f = view.filter;
  const sortMatches = f.seen !== undefined && f.seen !== "never" && f.app === undefined ? "+" : "";
  function* read(slices: { key: string | null; offset: number; limit: number }[]): Q<string[]> {
    const ids: string[] = [];
    for (const s of slices) {
      const g = inGroup(d, filter, s.key, dir, sortMatches);
      const rows = yield* all<{ device_id: string }>(
        `SELECT d.device_id FROM devices d WHERE ${g.cond} ORDER BY ${g.order} LIMIT ? OFFSET ?`,
        ...g.args,
        s.limit,
        s.offset,
      );
      ids.push(...rows.map((r) => r.device_id));
    }
    return ids;
  }
  const single = exactCountOf(view.filter);
  if (filter.where === noFilter(d) || single?.kind === "productType") {
    const kept = groupCounts(
      yield* all<{ dim: string; key: string; n: number }>(
        "SELECT dim, key, n FROM device_group_counts WHERE dim = 'productType'",
      ),
    ).productType;
    const { groups, total } = keptGroups(order, kept, single);
    return { ids: yield* read(groupSlices(groups, offset, perPage)), total, exact: true };
  }
  // A filter with an exact count (one of firmware, app, seen; not a firmware filter decided device by device: rollouts
  // hold devices, the kept keys lag) answers the total from it: the walk counts only up to the page's end.
  const exactKind = count && filter.firmware !== "hashed" ? single : null;
  const walk = new GroupWalk(order, offset, perPage, count && exactKind === null);
  for (let step = walk.next(); step !== null; step = walk.next()) {
    const g = inGroup(d, filter, step.key, dir, sortMatches);
    const { n } = (yield* one<{ n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM devices d WHERE ${g.cond} LIMIT ?) x`,
      ...g.args,
      step.cap,
    ))!;
    walk.counted(Number(n));
  }
  const { slices, total, exact } = walk.result();
  const ids = yield* read(slices);
  if (!count) return { ids, total: -1, exact: true };
  if (exact) return { ids, total, exact };
  return exactKind
    ? { ids, total: yield* counts.exactTotal(exactKind, filter.where, filter.args, filter.keys), exact: true }
    : { ids, total, exact: false };
}

/**
 * One export batch of a view: up to `limit` device ids after `after` (null: from the start) in the view's order, and
 * the cursor after the last (null: the view ended). Each part of the order is one index range from the cursor
 * (`(column, device_id) > (value, id)`), never an OFFSET.
 */
export function* viewBatch(
  view: DeviceView,
  after: ViewCursor | null,
  limit: number,
  product: string,
): Q<{ ids: string[]; next: ViewCursor | null }> {
  const d = yield* dialect();
  const filter = yield* whereOf(view.filter, product);
  const walk = viewFrom(d, view, filter);
  const seenSort = view.sort === "lastLoggedIn";
  // The sort by last seen reads device_seen: its device_id and copied columns from `s`.
  const onWalk = seenSort ? onNarrow : (sql: string) => sql;
  const dir = view.order === "desc" ? "DESC" : "ASC";
  const op = view.order === "desc" ? "<" : ">";
  const ids: string[] = [];
  let next: ViewCursor | null = null;
  function* batch(cond: string[], order: string, rest: number, key: string | null = null) {
    const args = [...walk.args];
    const values: Record<string, () => Param> = {
      id: () => after!.deviceId,
      value: () => after!.value,
      key: () => key,
    };
    const bound = cond.map((c) =>
      onWalk(c).replace(/\$(value|id|key)\b/g, (_, k: string) => {
        args.push(values[k]());
        return "?";
      })
    );
    return yield* all<{ device_id: string; v: string | null }>(
      `SELECT ${seenSort ? "s" : "d"}.device_id, ${SORT_COLUMN[view.sort]} AS v FROM ${walk.from} WHERE ${walk.where}${
        bound.map((c) => ` AND ${c}`).join("")
      } ORDER BY ${onWalk(order)} LIMIT ?`,
      ...args,
      rest,
    );
  }
  if (view.sort === "productType") {
    const types = yield* all<{ id: string; name: string }>("SELECT id, name FROM product_types");
    for (const g of groupsFrom(productTypeOrder(types, view.order), after)) {
      const rest = limit - ids.length;
      if (rest <= 0) break;
      const cond = d.engine === "sqlite"
        ? ["d.product_type_id IS $key"]
        : [g.key === null ? "d.product_type_id IS NULL" : "d.product_type_id = $key"];
      if (g.resume) cond.push(`d.device_id ${op} $id`);
      const order = d.engine === "sqlite" ? `d.device_id ${dir}` : `d.product_type_id ${dir}, d.device_id ${dir}`;
      for (const r of yield* batch(cond, order, rest, g.key)) {
        ids.push(r.device_id);
        next = { value: g.key, deviceId: r.device_id, group: g.group };
      }
    }
    return { ids, next: ids.length < limit ? null : next };
  }
  const lead = leadingColumn(d, seenSort ? filter.narrow.fixed : filter.fixed, view.sort, dir);
  const step = { sort: view.sort, column: SORT_COLUMN[view.sort], dir, op, nulls: nullsAsSqlite(d, dir) } as const;
  const parts = keysetParts(view.sort, view.order);
  const start = cursorPart(view.sort, after);
  for (const part of parts.slice(start === null ? 0 : parts.indexOf(start))) {
    const rest = limit - ids.length;
    if (rest <= 0) break;
    const { cond, order } = keysetStep(step, parts, part, after !== null && part === start);
    for (const r of yield* batch(cond, `${lead}${order}`, rest)) {
      ids.push(r.device_id);
      next = { value: r.v ?? null, deviceId: r.device_id };
    }
  }
  return { ids, next: ids.length < limit ? null : next };
}

/**
 * POST devices/bulk in the caller's write transaction: the devices locked, checks like a patch, then set-based
 * writes; any failure changes none.
 */
export function* bulkDevices(
  target: { deviceIds: string[] } | { filter: DeviceFilter },
  set: DeviceBulkSet,
  product: string,
): Q<{ updated: number; deviceIds: string[] }> {
  const d = yield* dialect();
  let ids: string[];
  if ("deviceIds" in target) {
    const found = new Set(
      (yield* all<{ device_id: string }>(
        `SELECT device_id FROM devices WHERE ${d.inList("device_id")}${d.forUpdate}`,
        d.list(target.deviceIds),
      )).map((r) => r.device_id),
    );
    const missing = target.deviceIds.find((id) => !found.has(id));
    if (missing !== undefined) throw new InvalidError(noBulkDevice(missing));
    ids = target.deviceIds;
  } else {
    const { where, args } = yield* whereOf(target.filter, product);
    ids = (yield* all<{ device_id: string }>(
      `SELECT d.device_id FROM devices d WHERE ${where} ORDER BY d.device_id${d.forUpdate}`,
      ...args,
    )).map((r) => r.device_id);
  }
  if (set.firmware != null) yield* requireReleasable(set.firmware, "be set on devices");
  // The same checks as a patch (no moduleIds: a product type change clears them, below).
  const changes = devicePatchWrites(set.productTypeId ?? null, set, {
    productTypeExists: set.productTypeId == null ||
      (yield* firstMissingId("product_types", [set.productTypeId])) === null,
    firmwareExists: set.firmware == null || (yield* firstMissingId("firmwares", [set.firmware])) === null,
    missingTreatment: yield* firstMissingId("treatments", set.additionalTreatmentIds ?? []),
    missingModule: null,
    foreignModule: null,
  });
  if (ids.length === 0) return { updated: 0, deviceIds: [] };
  const list = d.list(ids);
  const inIds = d.inList("device_id");
  if (changes.productTypeId !== undefined) {
    yield* run(
      `DELETE FROM device_modules WHERE device_id IN
         (SELECT d.device_id FROM devices d WHERE ${d.inList("d.device_id")}
          AND NOT (${same(d, "d.product_type_id", "?")}))`,
      list,
      changes.productTypeId,
    );
    yield* run(`UPDATE devices SET product_type_id = ? WHERE ${inIds}`, changes.productTypeId, list);
  }
  if (changes.firmware !== undefined) {
    yield* run(`UPDATE devices SET firmware_id = ? WHERE ${inIds}`, changes.firmware, list);
  }
  if (changes.additionalTreatmentIds !== undefined) {
    yield* run(`DELETE FROM device_treatments WHERE ${inIds}`, list);
    if (changes.additionalTreatmentIds.length) {
      yield* run(
        `INSERT INTO device_treatments (device_id, treatment_id, position)
         SELECT i.value, u.value, u.position FROM ${listRows(d)} i, ${positioned(d)}`,
        list,
        d.list(changes.additionalTreatmentIds),
      );
    }
  }
  yield* run(`UPDATE devices SET updated_at = ?, revision = ? WHERE ${inIds}`, now(), yield* nextRevision(), list);
  if (changes.productTypeId !== undefined || changes.firmware !== undefined) {
    yield* refreshDeviceKeys(d.inList("d.device_id"), [list]);
  }
  // One entry per device, as its own change would have, in the same transaction (the last writes).
  yield* appendAuditMany(auditEntries(ids, set));
  return { updated: ids.length, deviceIds: ids };
}

/** Product type and firmware names by id. */
export function* namesOf(): Q<{ productTypes: Map<string, string>; firmwares: Map<string, string> }> {
  const pairs = function* (table: string) {
    return new Map(
      (yield* all<{ id: string; name: string }>(`SELECT id, name FROM ${table}`)).map((r) => [r.id, r.name]),
    );
  };
  return { productTypes: yield* pairs("product_types"), firmwares: yield* pairs("firmwares") };
}
