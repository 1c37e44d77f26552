/**
 * A page of a fleet view in one statement, without a transaction (PostgreSQL; docs/DECISIONS.md, "Fleet views in one
 * round trip"): the page's ids (and the capped count past it), the kept total and the devices' rows, read from the one
 * snapshot a statement reads. A firmware filter's SQL is built from the keys state read before it (its own statement):
 * the page's statement reads that state again, and when it moved in between the page is not used (the caller reads it
 * in a transaction as before). So are the pages this does not cover (sorted by product type, beyond the end).
 */
import { cappedTotal, type DeviceView } from "../rules/device_view.ts";
import { all, type Q, type Row } from "../runner.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { pagePlan } from "./device_views.ts";
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
  if (view.sort === "productType" || counts.exactTotalSql === undefined) return null;
  const plan = yield* pagePlan(view, page, perPage, product, count);
  const keys = plan.filter.keys;
  if (keys !== null && keys.text === undefined) return null;
  const total = plan.exact === null ? null : counts.exactTotalSql(plan.exact, keys);
  // The ids as one ordered array (ARRAY(subquery) keeps its ORDER BY); the rows of the page's part of it.
  const rows = yield* all<Row & { view_got: number; view_ids: string[]; view_total: unknown; view_keys: string }>(
    `WITH w AS (SELECT ARRAY(${plan.sql}) AS a)
     SELECT cardinality(w.a) AS view_got, w.a[1:?] AS view_ids, ${total?.sql ?? "NULL"} AS view_total,
       ${keys === null ? "NULL" : KEYS_STATE_SQL} AS view_keys, r.*
     FROM w LEFT JOIN LATERAL (${select} WHERE d.device_id = ANY(w.a[1:?])) r ON true`,
    ...plan.args,
    perPage,
    ...total?.args ?? [],
    ...keys === null ? [] : [deviceTypeName(product)],
    perPage,
  );
  const first = rows[0];
  if (keys !== null && first.view_keys !== keys.text) return null;
  const ids = first.view_ids;
  const got = Number(first.view_got);
  const devices = ids.length ? rows : [];
  if (!count) return { ids, total: -1, exact: true, rows: devices };
  if (ids.length === 0 && plan.offset > 0) return null;
  if (plan.capped) return { ids, ...cappedTotal(plan.offset, perPage, got), rows: devices };
  const ends = ids.length < perPage;
  return {
    ids,
    total: ends ? plan.offset + ids.length : total!.read(first.view_total),
    exact: true,
    rows: devices,
  };
}
