/** The fleet overview (docs/REQUIREMENTS.md §16): its firmware and app distributions from the kept counts. */
import type { HoldingRollout } from "./firmware_in_effect.ts";
import { bucket } from "./rollouts.ts";
import { productTypeOrder } from "./product_type_groups.ts";

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

/** The overview's product types: devices without one first (only when there are some), then by name, with counts. */
export function overviewProductTypes(
  types: readonly { id: string; name: string }[],
  byType: ReadonlyMap<string | null, number>,
): { _id: string | null; name: string | null; devices: number }[] {
  const typeNames = new Map(types.map((t) => [t.id, t.name]));
  return productTypeOrder(types, "asc")
    .map((id) => ({ _id: id, name: id === null ? null : typeNames.get(id)!, devices: byType.get(id) ?? 0 }))
    .filter((t) => t._id !== null || t.devices > 0);
}

/**
 * The devices each deciding rollout holds, in firmwareDistribution's terms: a cancelled one's from its members that
 * installed it (`installed`, few: cancelledHeld), the others' from their kept counts less their pinned members
 * (`pinned`: those with a custom firmware, counted by the engine).
 */
export function heldByDeciding(
  deciding: readonly HoldingRollout[],
  rolloutRows: readonly { id: string; state: string; in_stage: number; installed: number }[],
  installed: ReadonlyMap<string, { deviceId: string; productTypeId: string | null }[]>,
  pinned: (rolloutId: string) => number,
): { firmwareId: string; devices: number }[] {
  const installedBy = new Map([...installed].map(([id, list]) => [id, new Set(list.map((m) => m.deviceId))]));
  return deciding.map((d, i) => ({
    firmwareId: d.firmwareId,
    devices: d.cancelled
      ? cancelledHeld(d, installed.get(d.id) ?? [], deciding.slice(0, i), installedBy)
      : heldByRollout({ ...rolloutRows.find((x) => x.id === d.id)!, custom: pinned(d.id) }),
  }));
}
