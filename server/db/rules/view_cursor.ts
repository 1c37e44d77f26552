/** Keyset cursors of fleet views: devices.csv reads a view in batches, each one index range after the last. */
import type { DeviceSort, DeviceSortOrder } from "../../../shared/schemas/device.ts";

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
