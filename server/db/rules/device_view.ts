/** A fleet view (docs/REQUIREMENTS.md §16): a filter plus a sort, what each filter means, and how far a view's total is counted. */
import type { DeviceFilter, DeviceSeen, DeviceSort, DeviceSortOrder } from "../../../shared/schemas/device.ts";

/** A fleet view: a filter plus a sort. */
export interface DeviceView {
  filter: DeviceFilter;
  sort: DeviceSort;
  order: DeviceSortOrder;
}

export const DEFAULT_VIEW: DeviceView = { filter: {}, sort: "deviceId", order: "asc" };

/** True for the plain list (no filter but q, sorted by deviceId ascending): the engines' fastest path. */
export const isPlainView = (v: DeviceView) =>
  v.sort === "deviceId" && v.order === "asc" &&
  Object.entries(v.filter).every(([k, value]) => k === "q" || value === undefined);

/**
 * A filtered view's total is counted to this many devices past the page; beyond it the answer's total is a lower bound
 * (`exact: false`), as the audit trail's (rules/audit.ts). Each device counted costs a row visit on PostgreSQL (its
 * visibility map is cleared by every check-in), so the bound keeps a page's cost bounded whatever the filter matches.
 */
export const VIEW_COUNT_LIMIT = 250;

/**
 * The filters whose totals are always exact: none, or exactly one of `productTypeId`, `firmware`, `app` or `seen`
 * (each engine answers these from counts it keeps or one index range). Any other combination is counted to
 * VIEW_COUNT_LIMIT past the page.
 */
export type ExactCount =
  | { kind: "all" }
  | { kind: "productType"; id: string | null }
  | { kind: "firmware"; filter: string }
  | { kind: "app"; version: string }
  | { kind: "seen"; seen: DeviceSeen };

export function exactCountOf(filter: DeviceFilter): ExactCount | null {
  const keys = Object.entries(filter).filter(([, v]) => v !== undefined).map(([k]) => k);
  if (keys.length === 0) return { kind: "all" };
  if (keys.length > 1) return null;
  if (filter.productTypeId !== undefined) {
    return { kind: "productType", id: productTypeCondition(filter.productTypeId) };
  }
  if (filter.firmware !== undefined) return { kind: "firmware", filter: filter.firmware };
  if (filter.app !== undefined) return { kind: "app", version: filter.app };
  if (filter.seen !== undefined) return { kind: "seen", seen: filter.seen };
  return null;
}

/**
 * The total of a page read with `LIMIT perPage + VIEW_COUNT_LIMIT` (`got` rows from `offset`): exact when the rows
 * ran out, else the lower bound.
 */
export function cappedTotal(offset: number, perPage: number, got: number): { total: number; exact: boolean } {
  return { total: offset + got, exact: got < perPage + VIEW_COUNT_LIMIT };
}

/** The hour key of a check-in time in the kept `seen` counts (PostgreSQL): `h:` and the ISO time to the hour. */
export const seenHourKey = (at: string) => `h:${at.slice(0, 13)}`;
/** The start of the hour after the one `at` is in, as an ISO prefix that compares after every time in it. */
export function nextHour(at: string): string {
  const t = new Date(at.slice(0, 13) + ":00:00.000Z").getTime() + 3600_000;
  return new Date(t).toISOString();
}

/** The `productTypeId` filter: `none` = no product type. */
export const productTypeCondition = (filter: string): string | null => filter === "none" ? null : filter;

const HOUR = 3600_000;
/**
 * The `seen` filter's time: last check-in at or after it (24h, 7d), before it (stale: more than 7 days ago), or never
 * (null).
 */
export function seenSince(seen: DeviceSeen, now: Date = new Date()): string | null {
  if (seen === "never") return null;
  return new Date(now.getTime() - (seen === "24h" ? 24 : 7 * 24) * HOUR).toISOString();
}

/** The hour of a check-in time as devices.seen_hour keeps it (the ISO time to the hour). */
export const seenHourOf = (at: string) => at.slice(0, 13);

/**
 * The `seen` filter as a condition on a device row `d` (docs/DECISIONS.md, "Last-seen writes of a million-device
 * fleet: the exact time beside the row"): its hour (d.seen_hour, in the indexes) decides every hour but the one the
 * bound falls in, whose devices are checked against their exact time in device_seen; the time bound by `p`.
 */
export function seenSql(seen: DeviceSeen, p: (v: string) => string, now: Date = new Date()): string {
  const since = seenSince(seen, now);
  if (since === null) return "d.seen_hour IS NULL";
  // Each placeholder bound in the order written. The boundary hour's exact check is written as "not (in the boundary
  // hour and on the wrong side of the bound)": PostgreSQL estimates that as almost every row of the hours' range (it
  // is), where an OR with the subquery made it guess a third of them and sort every match instead of walking the
  // sort's index (measured: 119 ms instead of 10 for a page at 1,000,000). The time is a scalar subquery read per
  // candidate of the boundary hour only (AND stops at the hour): an EXISTS there PostgreSQL ran once, as a hash of
  // every device seen since the bound.
  const hour = () => p(seenHourOf(since));
  const boundary = (op: string) =>
    `NOT (d.seen_hour = ${hour()} AND (SELECT ds.last_logged_in FROM device_seen ds WHERE ds.device_id = d.device_id) ${op} ${
      p(since)
    })`;
  if (seen === "stale") return `d.seen_hour <= ${hour()} AND ${boundary(">=")}`;
  return `d.seen_hour >= ${hour()} AND ${boundary("<")}`;
}

/** The `seen` filter as a condition on the exact time of the narrow table `s` (device_seen). */
export function seenExactSql(seen: DeviceSeen, p: (v: string) => string, now: Date = new Date()): string {
  const since = seenSince(seen, now);
  if (since === null) return "s.last_logged_in IS NULL";
  return seen === "stale" ? `s.last_logged_in < ${p(since)}` : `s.last_logged_in >= ${p(since)}`;
}

/**
 * PostgreSQL's hourly check-in counts (migration 10) are read only within the longest `seen` window (7 days); rows of
 * hours older than that plus a day of margin (clocks of several processes, a request's time) that count no device
 * are deleted by DeviceStore.pruneCounts. The key every such row is below (`h:` and the hour, as seenHourKey).
 */
export const SEEN_PRUNE_AFTER_MS = (7 + 1) * 24 * HOUR;
export const seenPruneBefore = (at: Date) => seenHourKey(new Date(at.getTime() - SEEN_PRUNE_AFTER_MS).toISOString());
