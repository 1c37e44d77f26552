/**
 * The firmware in effect (docs/REQUIREMENTS.md §6, §13, §16), shared by every engine: what it is, the rollouts that may decide it,
 * the SQL conditions of the `firmware` filter and the kept firmware keys. Each engine turns these into its own SQL.
 */
import { stagePercent } from "./rollouts.ts";

/**
 * THE definition of the firmware in effect (docs/REQUIREMENTS.md §6's config resolution): the device's custom firmware if set,
 * else its device type's default, else none. Rollouts (§13) may add a step between the two; they extend this
 * function and firmwareCondition() together.
 */
export function firmwareInEffect(customFirmwareId: string | null, defaultFirmwareId: string | null): string | null {
  return customFirmwareId ?? defaultFirmwareId;
}

/**
 * A rollout that may decide a device's firmware: config resolution's middle step (docs/REQUIREMENTS.md §13; the engines'
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

/**
 * The rollouts that may hold devices (see HoldingRollout), newest first by `creation`, the dialect's
 * tieBreak("rollouts"); rows for holdingRollouts.
 */
export const holdingRolloutsSql = (creation: string) =>
  `SELECT r.id, r.firmware_id, r.product_type_id, r.state, r.stages, r.stage
  FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
  WHERE r.state IN ('running', 'paused', 'finished') OR (r.state = 'cancelled' AND r.installed > 0)
  ORDER BY r.${creation} DESC`;

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
