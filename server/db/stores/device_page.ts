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
import { groupWalkPlan, pagePlan, TYPES_SQL, type ViewWhere } from "./device_views.ts";
import { KEYS_STATE_SQL } from "./firmware_keys.ts";
import type { FleetCounts } from "./fleet_counts.ts";

/** The page's ids in order, its total, and the rows of `select` (over alias d) for those ids, in no order. */
export interface OnePage {
  ids: string[];
  total: number;
  exact: boolean;
  rows: Row[];
}

/**
 * The page in one statement, or null where it must be read in a transaction. `select`: the device columns `FROM
 * devices d` (no parameters).
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
  const offset = page * perPage;
  // The view's ids from the page's first as one ordered array `w.a` (ARRAY(subquery) keeps its ORDER BY), `got`: how
  // many the walk read;
  // MATERIALIZED, or PostgreSQL inlines it into each of its three uses and walks the index three times.
  let statement: { filter: ViewWhere; with: string; args: Param[]; got: string; exact: ExactCount | null };
  let totalOf: (got: number, ids: string[]) => { total: number; exact: boolean } | null;
  let types: string | null = null;
  if (view.sort === "productType") {
    const walk = yield* groupWalkPlan(view, page, perPage, product, count);
    if (walk === null) return null;
    types = walk.types;
    statement = { ...walk, got: "w.got" };
    // As GroupWalk.result(): exact when the walk ended below its need, else the filter's exact count if it has one.
    totalOf = (got) => got < walk.need ? { total: got, exact: true } : walk.exact ? null : { total: got, exact: false };
  } else {
    const plan = yield* pagePlan(view, page, perPage, product, count);
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
  if (keys !== null && keys.text === undefined) return null;
  const total = statement.exact === null ? null : counts.exactTotalSql(statement.exact, keys);
  const rows = yield* all<
    Row & { view_got: number; view_ids: string[]; view_total: unknown; view_keys: string; view_types: string }
  >(
    `WITH ${statement.with}
     SELECT ${statement.got} AS view_got, w.a[1:?] AS view_ids, ${total?.sql ?? "NULL"} AS view_total,
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
  // What the statement was built from moved since it was read: the page is read in a transaction instead.
  if (keys !== null && first.view_keys !== keys.text) return null;
  if (types !== null && first.view_types !== types) return null;
  const ids = first.view_ids;
  const devices = ids.length ? rows : [];
  if (!count) return { ids, total: -1, exact: true, rows: devices };
  const counted = totalOf(Number(first.view_got), ids);
  if (counted?.total === -2) return null;
  if (counted !== null) return { ids, ...counted, rows: devices };
  return { ids, total: total!.read(first.view_total), exact: true, rows: devices };
}
