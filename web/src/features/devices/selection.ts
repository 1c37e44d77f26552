/**
 * The devices list's selection, shared by every action on many devices (bulk changes here; admission's accept and
 * reject): either devices picked by id, or every device matching a filter (the server applies the filter itself).
 */
import { atom } from "jotai";
import type { DevicesFilterState } from "./urlState.ts";

export type DeviceSelection =
  | { kind: "ids"; ids: readonly string[] }
  | { kind: "matching"; filter: DevicesFilterState; total: number; exact?: boolean };

export const NO_SELECTION: DeviceSelection = { kind: "ids", ids: [] };

export const deviceSelectionAtom = atom<DeviceSelection>(NO_SELECTION);

/** How many devices a selection names (for "all matching": the list's total, a lower bound unless exact). */
export const selectionSize = (s: DeviceSelection) => (s.kind === "ids" ? s.ids.length : s.total);

/** Whether selectionSize is the exact number (the list's total is a lower bound for some combinations of filters). */
export const selectionExact = (s: DeviceSelection) => s.kind === "ids" || s.exact !== false;

/**
 * "1 device", "N devices", or "at least N devices" when the count is a lower bound (GET devices counts a combination
 * of filters only so far past the page: `exact: false`).
 */
export const deviceCount = (n: number, exact = true) => `${exact ? "" : "at least "}${n} device${n === 1 ? "" : "s"}`;

/** The POST devices/bulk target of a selection (exactly one of deviceIds and filter). */
export function bulkTarget(s: DeviceSelection, apiFilter: (f: DevicesFilterState) => Record<string, string>) {
  return s.kind === "ids" ? { deviceIds: [...s.ids], filter: null } : { deviceIds: null, filter: apiFilter(s.filter) };
}
