/**
 * A page of a fleet view in one statement, without a transaction (PostgreSQL; docs/DECISIONS.md, "Fleet views: a
 * page in one statement on PostgreSQL"): the page's ids (and the capped count past it), the kept total and the devices'
 * rows, read from the one snapshot a statement reads. What the statement is built from and read before it in a
 * statement of its own (a firmware filter's keys state, the product types a sort by product type orders by) is read
 * again in it: when it moved in between, the page is read in a transaction as before. So are the pages this does not
 * cover: beyond the end, and sorted by product type unfiltered or by one product type alone (from the kept counts).
 */
import { cappedTotal, type DeviceView, type ExactCount } from "../rules/device_view.ts";
import { all, type Param, type Q, type Row } from "../runner.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import {
  type GroupWalkPlan,
  groupWalkPlan,
  type KnownTexts,
  pagePlan,
  TYPES_SQL,
  type ViewWhere,
} from "./device_views.ts";
import { KEYS_STATE_SQL, keysStateOfText, kickWhenBehind } from "./firmware_keys.ts";
import type { FleetCounts } from "./fleet_counts.ts";

/** The page's ids in order, its total, and the rows of `select` (over alias d) for those ids, in no order. */
export interface OnePage {
  ids: string[];
  total: number;
  exact: boolean;
  rows: Row[];
}

/** Per store (its counts), the texts its pages' statements were last built from: the keys state by product, the types. */
const lastTexts = new WeakMap<
  FleetCounts,
  { keys: Map<string, string>; types?: string; groups: Map<string, number> }
>();

/**
 * The page in one statement, or null where it must be read in a transaction. `select`: the device columns `FROM
 * devices d` (no parameters). The statement is built from the keys state and product types as the last page read them
 * (one round trip; the statement reads them again): when they moved since, it is built again from the texts it read,
 * once, and the keys keepers are kicked only for a state the statement read.
 */
export function* onePage(
  counts: FleetCounts,
  view: DeviceView,
  page: number,
  perPage: number,
  product: string,
  count: boolean,
  select: string,
): Q<OnePage | null> {
  if (counts.exactTotalSql === undefined) return null;
  let last = lastTexts.get(counts);
  if (last === undefined) lastTexts.set(counts, last = { keys: new Map(), groups: new Map() });
  let known: KnownTexts = { keys: last.keys.get(product), types: last.types };
  // A sort by product type: as many groups as the pages of this view needed so far (at first one), the statement of
  // those only (each group is two subqueries to plan: ~1 ms in all for five groups under a check-in filter).
  const walkKey = view.sort === "productType" ? JSON.stringify([product, view.order, view.filter]) : null;
  let groups = walkKey === null ? undefined : last.groups.get(walkKey) ?? 1;
  for (let attempt = 0; attempt < 3; attempt++) {
    const at = yield* pageOf(counts, view, page, perPage, product, count, select, known, groups);
    if (at.read.keys !== undefined) last.keys.set(product, at.read.keys);
    if (at.read.types !== undefined) last.types = at.read.types;
    if (walkKey !== null && at.groupsNeeded !== undefined) {
      if (last.groups.size >= 256) last.groups.clear();
      last.groups.set(walkKey, Math.max(last.groups.get(walkKey) ?? 1, at.groupsNeeded));
    }
    // The first groups did not fill the need: again with every group.
    if (at.more) groups = Infinity;
    if (at.page !== undefined) {
      // A state not read first (keysInForce kicked for that one).
      if (at.read.keys !== undefined && known.keys !== undefined) {
        kickWhenBehind(keysStateOfText(at.read.keys), product);
      }
      return at.page;
    }
    // Built from texts that moved: again from the texts the statement read (its keys state or types, else read first).
    known = at.read;
  }
  return null;
}

/**
 * One statement of a page built from `known` (the texts not given are read first) and, sorted by product type, the
 * first `groupsAtMost` groups. `page` undefined: a text it was built from differs from the one the statement read
 * (`read`: the texts it read), or (`more`) those groups did not fill the walk's need. `groupsNeeded`: how many groups
 * the walk needed.
 */
function* pageOf(
  counts: FleetCounts,
  view: DeviceView,
  page: number,
  perPage: number,
  product: string,
  count: boolean,
  select: string,
  known: KnownTexts,
  groupsAtMost: number | undefined,
): Q<{ page?: OnePage | null; read: KnownTexts; groupsNeeded?: number; more?: true }> {
  const offset = page * perPage;
  // The view's ids from the page's first as one ordered array `w.a` (ARRAY(subquery) keeps its ORDER BY), `got`: how
  // many the walk read;
  // MATERIALIZED, or PostgreSQL inlines it into each of its three uses and walks the index three times.
  let statement: { filter: ViewWhere; with: string; args: Param[]; got: string; exact: ExactCount | null };
  let totalOf: (got: number, ids: string[]) => { total: number; exact: boolean } | null;
  let types: string | null = null;
  let walk: GroupWalkPlan | null = null;
  if (view.sort === "productType") {
    walk = yield* groupWalkPlan(view, page, perPage, product, count, known, groupsAtMost);
    if (walk === null) return { page: null, read: {} };
    types = walk.types;
    statement = { ...walk, got: "w.got" };
    const need = walk.need, exact = walk.exact;
    // As GroupWalk.result(): exact when the walk ended below its need, else the filter's exact count if it has one.
    totalOf = (got) => got < need ? { total: got, exact: true } : exact ? null : { total: got, exact: false };
  } else {
    const plan = yield* pagePlan(view, page, perPage, product, count, known);
    statement = {
      filter: plan.filter,
      with: `w AS MATERIALIZED (SELECT ARRAY(${plan.sql}) AS a)`,
      args: plan.args,
      got: "cardinality(w.a)",
      exact: plan.exact,
    };
    totalOf = (got, ids) =>
      ids.length === 0 && offset > 0
        ? { total: -2, exact: true } // beyond the end: counted in the transaction (viewIds)
        : plan.capped
        ? cappedTotal(offset, perPage, got)
        : ids.length < perPage
        ? { total: offset + ids.length, exact: true }
        : null;
  }
  const keys = statement.filter.keys;
  if (keys !== null && keys.text === undefined) return { page: null, read: {} };
  const total = statement.exact === null ? null : counts.exactTotalSql!(statement.exact, keys);
  const rows = yield* all<
    Row & {
      view_got: number;
      view_ids: string[];
      view_total: unknown;
      view_keys: string;
      view_types: string;
      view_walk: number[] | null;
    }
  >(
    `WITH ${statement.with}
     SELECT ${statement.got} AS view_got, ${walk === null ? "NULL" : "w.ns"} AS view_walk, w.a[1:?] AS view_ids,
       ${total?.sql ?? "NULL"} AS view_total,
       ${keys === null ? "NULL" : KEYS_STATE_SQL} AS view_keys, ${
      types === null ? "NULL" : TYPES_SQL
    } AS view_types, r.*
     FROM w LEFT JOIN LATERAL (${select} WHERE d.device_id = ANY(w.a[1:?])) r ON true`,
    ...statement.args,
    perPage,
    ...total?.args ?? [],
    ...keys === null ? [] : [deviceTypeName(product)],
    perPage,
  );
  const first = rows[0];
  const read: KnownTexts = {
    ...keys === null ? {} : { keys: first.view_keys },
    ...types === null ? {} : { types: first.view_types },
  };
  // What the statement was built from moved since it was read.
  if ((keys !== null && first.view_keys !== keys.text) || (types !== null && first.view_types !== types)) {
    return { read };
  }
  // The first groups alone did not fill the need: the walk goes on past them (the statement again with every group).
  if (walk !== null && !walk.complete && Number(first.view_got) < walk.need) return { read, more: true };
  // How many groups the walk needed (up to the first whose count fills the need), for the next page of this view.
  const filled = first.view_walk?.findIndex((n) => Number(n) >= walk!.need) ?? -1;
  const groupsNeeded = walk === null ? undefined : filled === -1 ? Infinity : filled + 1;
  const ids = first.view_ids;
  const devices = ids.length ? rows : [];
  if (!count) return { page: { ids, total: -1, exact: true, rows: devices }, read, groupsNeeded };
  const counted = totalOf(Number(first.view_got), ids);
  if (counted?.total === -2) return { page: null, read, groupsNeeded };
  if (counted !== null) return { page: { ids, ...counted, rows: devices }, read, groupsNeeded };
  return { page: { ids, total: total!.read(first.view_total), exact: true, rows: devices }, read, groupsNeeded };
}
