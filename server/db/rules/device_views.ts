/**
 * Fleet views (CONTRACT §16), shared by every engine: what "the firmware in effect" is, what each filter means, and
 * the order of product types. Each engine turns these decisions into its own indexed SQL.
 */
import type {
  DeviceBulkSet,
  DeviceFilter,
  DeviceSeen,
  DeviceSort,
  DeviceSortOrder,
} from "../../../shared/schemas/device.ts";
import type { NewAuditEntry } from "./audit.ts";
import { deviceTarget } from "./devices.ts";
import { bucket, stagePercent } from "./rollouts.ts";

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
 * THE definition of the firmware in effect (CONTRACT §6's config resolution): the device's custom firmware if set,
 * else its device type's default, else none. Rollouts (§13) may add a step between the two; they extend this
 * function and firmwareCondition() together.
 */
export function firmwareInEffect(customFirmwareId: string | null, defaultFirmwareId: string | null): string | null {
  return customFirmwareId ?? defaultFirmwareId;
}

/**
 * A rollout that may decide a device's firmware: config resolution's middle step (CONTRACT §13; the engines'
 * offeredByRollout): running, paused or finished with devices in its current stage (`percent`), or cancelled with
 * devices that installed it; its firmware still there. Newest first, as config resolution tries them.
 */
export interface HoldingRollout {
  id: string;
  firmwareId: string;
  productTypeId: string | null;
  cancelled: boolean;
  percent: number;
}

/** The rollouts that may hold devices (see HoldingRollout); rows of HOLDING_ROLLOUTS_SQL. */
export const HOLDING_ROLLOUTS_SQL = `SELECT r.id, r.firmware_id, r.product_type_id, r.state, r.stages, r.stage
  FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
  WHERE r.state IN ('running', 'paused', 'finished') OR (r.state = 'cancelled' AND r.installed > 0)
  ORDER BY r.created_at DESC, r.id DESC`;

/** A rollouts row as holdingRollouts reads it. */
export interface HoldingRolloutRow {
  id: string;
  firmware_id: string;
  product_type_id: string | null;
  state: string;
  stages: string;
  stage: number;
}

export function holdingRollouts(rows: readonly HoldingRolloutRow[]): HoldingRollout[] {
  return rows.map((r) => ({
    id: r.id,
    firmwareId: r.firmware_id,
    productTypeId: r.product_type_id,
    cancelled: r.state === "cancelled",
    percent: stagePercent(JSON.parse(r.stages), Number(r.stage)),
  })).filter((r) => r.cancelled || r.percent > 0);
}

/**
 * The holding rollouts that can decide a device's firmware apart from the default, newest first: none past one that
 * holds every device without a custom firmware (running, paused or finished at 100 % for all product types: config
 * resolution never looks further), and none at the end whose firmware is the default (holding or not, the device gets
 * the default). The usual steady state — the last rollout finished and promoted — so costs nothing.
 */
export function decidingRollouts(rollouts: readonly HoldingRollout[], defaultFirmwareId: string | null) {
  const all = rollouts.findIndex((r) => !r.cancelled && r.productTypeId === null && r.percent >= 100);
  const out = all < 0 ? [...rollouts] : rollouts.slice(0, all + 1);
  while (out.length && out[out.length - 1].firmwareId === defaultFirmwareId) out.pop();
  return out;
}

/**
 * SQL true when rollout `r` holds device `d` (alias d), exactly as config resolution decides: the device's product
 * type in the rollout's scope, and its bucket (`bucketOf`: the engine's expression of rules/rollouts.ts's bucket())
 * in the current stage, or (cancelled) its report of having installed it. `p` binds a value in textual order.
 */
export function holdsSql(r: HoldingRollout, p: (v: string | number) => string, bucketOf: (id: string) => string) {
  const scope = r.productTypeId === null ? "" : `d.product_type_id = ${p(r.productTypeId)} AND `;
  return r.cancelled
    ? `(${scope}EXISTS (SELECT 1 FROM rollout_devices rd WHERE rd.rollout_id = ${
      p(r.id)
    } AND rd.device_id = d.device_id AND rd.state = 'installed'))`
    : `(${scope}${bucketOf(p(r.id))} < ${p(r.percent)})`;
}

/**
 * The firmware the deciding rollouts give device d (alias d), whatever its custom firmware: the newest that holds it,
 * else NULL. What the kept column `rollout_firmware_id` holds, and what the filters decide device by device while
 * that column is not current.
 */
export function rolloutFirmwareSql(
  rollouts: readonly HoldingRollout[],
  p: (v: string | number) => string,
  bucketOf: (id: string) => string,
): string {
  if (!rollouts.length) return "NULL";
  return `(CASE ${rollouts.map((r) => `WHEN ${holdsSql(r, p, bucketOf)} THEN ${p(r.firmwareId)}`).join(" ")} END)`;
}

/**
 * The `firmware` filter as SQL over d (alias d) when rollouts may hold devices and the kept columns are not current:
 * the firmware in effect is the custom one, else the newest holding rollout's, else the default (null: none).
 * `default` = no custom firmware, and the firmware in effect is the default (no rollout gives another one).
 * `custom` is left to the plain condition.
 */
export function firmwareInEffectSql(
  filter: "default" | { id: string },
  rollouts: readonly HoldingRollout[],
  defaultFirmwareId: string | null,
  p: (v: string | number) => string,
  bucketOf: (id: string) => string,
): string {
  // Each value is bound where it appears, in textual order (SQLite's `?`).
  if (filter === "default") {
    const given = rolloutFirmwareSql(rollouts, p, bucketOf);
    if (defaultFirmwareId === null) return `(d.firmware_id IS NULL AND ${given} IS NULL)`;
    return `(d.firmware_id IS NULL AND coalesce(${given}, ${p(defaultFirmwareId)}) = ${p(defaultFirmwareId)})`;
  }
  const custom = `d.firmware_id = ${p(filter.id)}`;
  const given = rolloutFirmwareSql(rollouts, p, bucketOf);
  const rest = defaultFirmwareId === null ? "NULL" : p(defaultFirmwareId);
  return `(${custom} OR (d.firmware_id IS NULL AND coalesce(${given}, ${rest}) = ${p(filter.id)}))`;
}

/**
 * The kept firmware key of device d from its custom firmware and its kept `rollout_firmware_id`: the firmware in
 * effect, or NULL when that is the default (whether by no choice, a rollout shipping it, or a pin). Kept so that every
 * firmware filter is one index range: "the default's id" is `firmware_key IS NULL`, any other id `firmware_key = id`.
 */
export function firmwareKeySql(defaultFirmwareId: string | null, p: (v: string | number) => string): string {
  const effective = "coalesce(d.firmware_id, d.rollout_firmware_id)";
  return defaultFirmwareId === null ? effective : `NULLIF(${effective}, ${p(defaultFirmwareId)})`;
}

/**
 * The `firmware` filter on the kept columns (current for the rollouts and default in force: see keysSignature), the
 * same devices as firmwareInEffectSql and config resolution: `custom` = a custom firmware set; `default` = none set
 * and the default in effect; the default's id = the default in effect (pinned or not); another id = that in effect.
 * `fixed`: the column the condition holds at one value (for an index's order).
 */
export function keptFirmwareSql(
  fw: FirmwareCondition,
  p: (v: string | number) => string,
): { sql: string; fixed: string | null } {
  if (fw.kind === "custom") return { sql: "d.firmware_id IS NOT NULL", fixed: null };
  if (fw.kind === "default") {
    return { sql: "d.firmware_key IS NULL AND d.firmware_id IS NULL", fixed: "d.firmware_key" };
  }
  if (fw.orNoCustom) return { sql: "d.firmware_key IS NULL", fixed: "d.firmware_key" };
  return { sql: `d.firmware_key = ${p(fw.id)}`, fixed: "d.firmware_key" };
}

/**
 * How a filter's firmware condition was decided: on the kept keys (current), on the custom firmware column (no rollout
 * decides anything, keys not current), or device by device (rollouts decide, keys not current: a sync is due).
 */
export type FirmwareMode = "kept" | "plain" | "hashed";

/**
 * The exact total of a firmware filter on the kept keys, from the kept counts: `custom` (dim firmware: the custom
 * firmware column) and `effective` (the firmware key; none = the default in effect).
 */
export function keptFirmwareTotal(
  fw: FirmwareCondition,
  defaultFirmwareId: string | null,
  counts: { custom: ReadonlyMap<string | null, number>; effective: ReadonlyMap<string | null, number> },
): number {
  if (fw.kind === "custom") {
    let n = 0;
    for (const [id, c] of counts.custom) if (id !== null) n += c;
    return n;
  }
  const onDefault = counts.effective.get(null) ?? 0;
  if (fw.kind === "default") {
    return onDefault - (defaultFirmwareId === null ? 0 : counts.custom.get(defaultFirmwareId) ?? 0);
  }
  return fw.orNoCustom ? onDefault : counts.effective.get(fw.id) ?? 0;
}

/**
 * What the kept columns `rollout_firmware_id` and `firmware_key` were computed from: the generation (bumped by
 * triggers, in the writing transaction, whenever a rollout's state or stage, the default firmware, a firmware or a
 * product type changes), the deciding rollouts and the default. The filters and the overview trust the kept columns
 * only while the signature the last sync wrote is the current one; otherwise they decide device by device (and a
 * sync is started).
 */
export const keysSignature = (
  generation: number,
  rollouts: readonly HoldingRollout[],
  defaultFirmwareId: string | null,
): string => JSON.stringify([Number(generation), defaultFirmwareId, rollouts]);

/** How many devices one sync transaction recomputes (a sync walks the fleet in deviceId order, in such slices). */
export const KEYS_SYNC_SLICE = 2000;

/**
 * The `firmware` filter as a condition on the device's custom firmware column, given the managed device type's
 * default: `custom` = a custom firmware is set; `default` = none is set (the default applies, whatever it is); a
 * firmware id = that firmware is in effect: set as custom, or (when it is the default) no custom firmware set.
 */
export type FirmwareCondition =
  | { kind: "custom" }
  | { kind: "default" }
  | { kind: "firmware"; id: string; orNoCustom: boolean };

export function firmwareCondition(filter: string, defaultFirmwareId: string | null): FirmwareCondition {
  if (filter === "custom") return { kind: "custom" };
  if (filter === "default") return { kind: "default" };
  return { kind: "firmware", id: filter, orNoCustom: firmwareInEffect(null, defaultFirmwareId) === filter };
}

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

/**
 * Where an export batch ends (devices.csv reads a view in batches, each after the last row of the one before, so each
 * batch is one index range from there: linear in the fleet's size, not the square of it as OFFSET batches were).
 * `value` is the last row's sort value (null: none; for `productType` the product type id), `deviceId` breaks ties.
 */
export interface ViewCursor {
  value: string | null;
  deviceId: string;
  /** productType sort: the group's place in productTypeOrder when the batch was read. */
  group?: number;
}

/**
 * The parts of a view's order, walked one after the other by keyset batches: a sort on a column that may be missing
 * (last check-in, app version) has the devices without one first ascending, last descending.
 */
export type KeysetPart = "null" | "value";

export function keysetParts(sort: DeviceSort, order: DeviceSortOrder): KeysetPart[] {
  if (sort !== "lastLoggedIn" && sort !== "app") return ["value"];
  return order === "asc" ? ["null", "value"] : ["value", "null"];
}

/**
 * One part of a keyset walk as SQL text: its conditions (with `$value` and `$id` for the cursor's sort value and
 * deviceId, which each engine binds its own way) and its order. `nulls` is the engine's NULLS clause for the
 * direction ("" where the engine already sorts missing values first ascending, as SQLite does).
 */
export function keysetStep(
  k: { sort: DeviceSort; column: string; dir: "ASC" | "DESC"; op: "<" | ">"; nulls: string },
  parts: KeysetPart[],
  part: KeysetPart,
  resume: boolean,
): { cond: string[]; order: string } {
  const cond: string[] = [];
  if (k.sort === "deviceId") {
    if (resume) cond.push(`d.device_id ${k.op} $id`);
    return { cond, order: `d.device_id ${k.dir}` };
  }
  if (part === "null") {
    cond.push(`${k.column} IS NULL`);
    if (resume) cond.push(`d.device_id ${k.op} $id`);
    return { cond, order: `${k.column} ${k.dir}${k.nulls}, d.device_id ${k.dir}` };
  }
  if (parts.length > 1) cond.push(`${k.column} IS NOT NULL`);
  if (resume) cond.push(`(${k.column}, d.device_id) ${k.op} ($value, $id)`);
  return { cond, order: `${k.column} ${k.dir}${parts.length > 1 ? k.nulls : ""}, d.device_id ${k.dir}` };
}

/** The part a cursor is in (null: the first part, from its start). */
export const cursorPart = (sort: DeviceSort, after: ViewCursor | null): KeysetPart | null =>
  after === null ? null : (sort === "lastLoggedIn" || sort === "app") && after.value === null ? "null" : "value";

/**
 * The product-type groups a keyset batch walks (productTypeOrder), from the cursor's on, with their places: the
 * cursor's group first (read after its deviceId: `resume` true). When the cursor's product type was deleted meanwhile
 * (its devices moved to "none"), the walk goes on with the group that took its place.
 */
export function groupsFrom(
  order: readonly (string | null)[],
  after: ViewCursor | null,
): { key: string | null; group: number; resume: boolean }[] {
  const i = after === null ? 0 : order.indexOf(after.value);
  const from = i >= 0 ? i : Math.min(after!.group ?? order.length, order.length);
  return order.slice(from).map((key, k) => ({ key, group: from + k, resume: i >= 0 && after !== null && k === 0 }));
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

/** The `seen` filter as a condition on d.last_logged_in, its time bound by `p`. */
export function seenSql(seen: DeviceSeen, p: (v: string) => string, now: Date = new Date()): string {
  const since = seenSince(seen, now);
  if (since === null) return "d.last_logged_in IS NULL";
  return seen === "stale" ? `d.last_logged_in < ${p(since)}` : `d.last_logged_in >= ${p(since)}`;
}

/**
 * PostgreSQL's hourly check-in counts (migration 10) are read only within the longest `seen` window (7 days); rows of
 * hours older than that plus a day of margin (clocks of several processes, a request's time) that count no device
 * are deleted by DeviceStore.pruneCounts. The key every such row is below (`h:` and the hour, as seenHourKey).
 */
export const SEEN_PRUNE_AFTER_MS = (7 + 1) * 24 * HOUR;
export const seenPruneBefore = (at: Date) => seenHourKey(new Date(at.getTime() - SEEN_PRUNE_AFTER_MS).toISOString());

/**
 * Product types in the order `sort=productType` shows them: devices without one first, then by name (code-unit
 * order), then id; `desc` reverses the whole list. null stands for "no product type".
 */
export function productTypeOrder(
  types: readonly { id: string; name: string }[],
  order: DeviceSortOrder,
): (string | null)[] {
  const sorted = [...types].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  );
  const ids: (string | null)[] = [null, ...sorted.map((t) => t.id)];
  return order === "asc" ? ids : ids.reverse();
}

/**
 * The product-type groups of `sort=productType` from the kept counts (no filter, or one product type alone: the others
 * are empty), in `order`, and their total.
 */
export function keptGroups(
  order: readonly (string | null)[],
  kept: ReadonlyMap<string | null, number>,
  one: ExactCount | null,
): { groups: { key: string | null; count: number }[]; total: number } {
  const groups = order.map((key) => ({
    key,
    count: one?.kind === "productType" && one.id !== key ? 0 : kept.get(key) ?? 0,
  }));
  return { groups, total: groups.reduce((s, g) => s + g.count, 0) };
}

/**
 * The slices of product-type groups (in productTypeOrder) that one page covers: for each, the group, how many of its
 * devices to skip and how many to take (each group ordered by deviceId in the view's direction).
 */
export function groupSlices(
  groups: readonly { key: string | null; count: number }[],
  offset: number,
  limit: number,
): { key: string | null; offset: number; limit: number }[] {
  const out: { key: string | null; offset: number; limit: number }[] = [];
  let start = 0;
  for (const g of groups) {
    if (limit <= 0) break;
    const end = start + g.count;
    if (offset < end) {
      const skip = Math.max(0, offset - start);
      const take = Math.min(limit, g.count - skip);
      if (take > 0) out.push({ key: g.key, offset: skip, limit: take });
      offset += take;
      limit -= take;
    }
    start = end;
  }
  return out;
}

/**
 * `sort=productType` under a filter (other than one product type alone): the product-type groups are walked in
 * productTypeOrder, each counted only as far as the view still needs — up to `need` = the page's end plus
 * VIEW_COUNT_LIMIT (the page's end alone when the total is not wanted) — and the walk stops once that many are
 * counted, as the other sorts read on past the page. The engine counts each group it is given (`next()`: its key and
 * the most to count, one LIMIT-ed index range of (product_type_id, device_id)) and reports the count (`counted()`);
 * `result()` gives the slices of groups the page covers (groupSlices) and the total: exact when every group was
 * counted fully (fewer than `need` in all), else the lower bound `need` with `exact: false`. A page beyond the end
 * gets the exact number of matches: it is below `need`.
 */
export class GroupWalk {
  readonly need: number;
  readonly #groups: { key: string | null; count: number }[] = [];
  #counted = 0;

  constructor(
    private readonly order: readonly (string | null)[],
    private readonly offset: number,
    private readonly perPage: number,
    count: boolean,
  ) {
    this.need = offset + perPage + (count ? VIEW_COUNT_LIMIT : 0);
  }

  /** The next group to count, and the most to count of it; null when the walk is over. */
  next(): { key: string | null; cap: number } | null {
    const i = this.#groups.length;
    if (i >= this.order.length || this.#counted >= this.need) return null;
    return { key: this.order[i], cap: this.need - this.#counted };
  }

  /** Records the count of the group next() named (at most its cap). */
  counted(n: number): void {
    const step = this.next();
    if (step === null) throw new Error("GroupWalk: no group to count");
    const count = Math.min(n, step.cap);
    this.#groups.push({ key: step.key, count });
    this.#counted += count;
  }

  /** The page's slices of groups and the total (exact when every group was counted fully). */
  result(): {
    slices: { key: string | null; offset: number; limit: number }[];
    total: number;
    exact: boolean;
  } {
    if (this.next() !== null) throw new Error("GroupWalk: the walk is not over");
    return {
      slices: groupSlices(this.#groups, this.offset, this.perPage),
      total: this.#counted,
      exact: this.#counted < this.need,
    };
  }
}

/**
 * The overview's firmware distribution (firmware in effect): the kept counts of the custom firmware column, with the
 * devices that rollouts hold moved from the default to each rollout's firmware. A rollout's held devices come from
 * its kept counts (in its current stage, or installed when cancelled) less those that have a custom firmware since:
 * no device-by-device pass over the fleet. Not counted exactly (docs/DECISIONS.md, "Fleet views"): a device two
 * holding rollouts overlap on (counted for each), one that left the rollout's product type, and one that became
 * eligible (its custom firmware cleared) until it checks in and joins.
 */
export function firmwareDistribution(
  customCounts: ReadonlyMap<string | null, number>,
  defaultFirmwareId: string | null,
  held: readonly { firmwareId: string; devices: number }[],
): Map<string | null, number> {
  const out = new Map<string | null, number>();
  const add = (id: string | null, n: number) => out.set(id, (out.get(id) ?? 0) + n);
  let onDefault = 0;
  for (const [custom, n] of customCounts) {
    if (custom === null) onDefault += n;
    else add(custom, n);
  }
  for (const h of held) {
    const n = Math.max(0, Math.min(h.devices, onDefault));
    onDefault -= n;
    if (n > 0) add(h.firmwareId, n);
  }
  if (onDefault > 0) add(defaultFirmwareId, onDefault);
  return out;
}

/** The overview's firmware distribution from the kept firmware keys' counts (none: the default in effect). */
export function keptDistribution(
  effective: ReadonlyMap<string | null, number>,
  defaultFirmwareId: string | null,
): Map<string | null, number> {
  const out = new Map<string | null, number>();
  for (const [key, n] of effective) {
    const id = key ?? defaultFirmwareId;
    out.set(id, (out.get(id) ?? 0) + n);
  }
  return out;
}

/**
 * The devices a cancelled rollout still decides, exactly: its members that reported installing it (few), without a
 * custom firmware (`installed` lists only those), in its scope, and not held by a newer deciding rollout (config
 * resolution tries the newer first).
 */
export function cancelledHeld(
  c: HoldingRollout,
  installed: readonly { deviceId: string; productTypeId: string | null }[],
  newer: readonly HoldingRollout[],
  installedBy: ReadonlyMap<string, ReadonlySet<string>>,
): number {
  const inScope = (r: HoldingRollout, pt: string | null) => r.productTypeId === null || r.productTypeId === pt;
  return installed.filter((m) =>
    inScope(c, m.productTypeId) &&
    !newer.some((r) =>
      inScope(r, m.productTypeId) &&
      (r.cancelled ? installedBy.get(r.id)?.has(m.deviceId) ?? false : bucket(r.id, m.deviceId) < r.percent)
    )
  ).length;
}

/** The devices a holding rollout's kept counts hold (see firmwareDistribution). */
export const heldByRollout = (r: { state: string; in_stage: number; installed: number; custom: number }) =>
  Math.max(0, Number(r.state === "cancelled" ? r.installed : r.in_stage) - Number(r.custom));

/** The overview's firmware and app lists from their counts, in byDevicesThenKey order, named. */
export function overviewLists(
  byFirmware: ReadonlyMap<string | null, number>,
  firmwareNames: ReadonlyMap<string, string>,
  apps: ReadonlyMap<string | null, number>,
) {
  const firmwares = [...byFirmware].map(([id, n]) => ({
    _id: id,
    name: id === null ? null : firmwareNames.get(id) ?? id,
    devices: n,
  }));
  return {
    firmwares: byDevicesThenKey(firmwares, (f) => f._id),
    apps: byDevicesThenKey([...apps].map(([version, n]) => ({ version, devices: n })), (a) => a.version),
  };
}

/** The overview's lists: most devices first, then by key (null first), the same on every engine. */
export function byDevicesThenKey<T extends { devices: number }>(items: T[], key: (t: T) => string | null): T[] {
  return items.sort((a, b) => {
    if (a.devices !== b.devices) return b.devices - a.devices;
    const ka = key(a), kb = key(b);
    if (ka === kb) return 0;
    if (ka === null) return -1;
    if (kb === null) return 1;
    return ka < kb ? -1 : 1;
  });
}

/**
 * The rows of `device_group_counts` (kept by triggers on both engines: `'v:' || value` or `'none'` per dimension) as
 * counts by value (null: none): `firmware` is the custom firmware column, `effective` the kept firmware key.
 */
export function groupCounts(rows: readonly { dim: string; key: string; n: number }[]) {
  const out = {
    productType: new Map<string | null, number>(),
    firmware: new Map<string | null, number>(),
    effective: new Map<string | null, number>(),
    app: new Map<string | null, number>(),
  };
  for (const r of rows) {
    const map = out[r.dim as keyof typeof out];
    if (!map || Number(r.n) === 0) continue;
    map.set(r.key === "none" ? null : r.key.slice(2), Number(r.n));
  }
  return out;
}

/** Bulk change refusals. */
export const noBulkDevice = (deviceId: string) => `deviceIds: no device with deviceId ${deviceId}.`;

/** The audit entries of a bulk change: one `device.bulk_update` per device, with what was set and how many changed. */
export function* auditEntries(deviceIds: readonly string[], set: DeviceBulkSet): Generator<NewAuditEntry> {
  for (const id of deviceIds) {
    yield {
      action: "device.bulk_update",
      target: deviceTarget(id),
      details: { changes: set, devices: deviceIds.length },
    };
  }
}
