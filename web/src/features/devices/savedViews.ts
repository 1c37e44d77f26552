/**
 * Saved views and the column choice (docs/DECISIONS.md, "Saved views and preferences per operator"): both are kept
 * on the server per operator. This browser's localStorage keeps a copy of the column choice, so the first paint of
 * the list has the right columns before the server answers, and holds the views saved before they moved to the
 * server, imported once (then cleared) by importLocalViews().
 */
import type { SavedView, SavedViewQuery } from "../../../../shared/schemas/saved_view.ts";
import { DEFAULT_PAGE_SIZE } from "../../../../shared/schemas/device.ts";
import { devicesUrlQuery, type DevicesUrlState, FILTER_KEYS, NO_FILTER, readDevicesUrl } from "./urlState.ts";

/** A view as this browser used to keep it: the devices list's URL query. */
export interface LocalView {
  name: string;
  query: string;
}

const viewsKey = (who: string | null) => `deviceViews:${who ?? ""}`;
const columnsKey = (who: string | null) => `deviceColumns:${who ?? ""}`;

function read<T>(key: string, fallback: T, valid: (v: unknown) => boolean): T {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? "null");
    return valid(v) ? v as T : fallback;
  } catch {
    return fallback;
  }
}

/** The views saved in this browser before views moved to the server (empty once imported). */
export const loadLocalViews = (who: string | null): LocalView[] =>
  read<LocalView[]>(viewsKey(who), [], (v) =>
    Array.isArray(v) &&
    v.every((x) => typeof x?.name === "string" && typeof x?.query === "string"));

/** Keeps only `views` (the ones not imported yet); none left: the key goes. */
export function keepLocalViews(who: string | null, views: LocalView[]): void {
  try {
    if (views.length) localStorage.setItem(viewsKey(who), JSON.stringify(views));
    else localStorage.removeItem(viewsKey(who));
  } catch {
    // Storage disabled: nothing kept, nothing to clear.
  }
}

/** This browser's copy of the column choice (the server's is the truth; see DevicesScreen). */
export const loadColumns = (who: string | null, fallback: string[]): string[] =>
  read<string[]>(columnsKey(who), fallback, (v) => Array.isArray(v) && v.every((x) => typeof x === "string"));

export function saveColumns(who: string | null, columns: string[] | null): void {
  try {
    if (columns) localStorage.setItem(columnsKey(who), JSON.stringify(columns));
    else localStorage.removeItem(columnsKey(who));
  } catch {
    // Storage disabled: the server still keeps the choice.
  }
}

/** The saved query of a list state: its filters and sort (defaults and empty members left out; no page). */
export function viewQueryOf(s: DevicesUrlState): SavedViewQuery {
  const out: Record<string, string> = {};
  if (s.q) out.q = s.q;
  for (const key of FILTER_KEYS) if (s[key]) out[key] = s[key];
  if (s.sort !== "deviceId") out.sort = s.sort;
  if (s.order !== "asc") out.order = s.order;
  return out as SavedViewQuery;
}

/** The devices list's URL query of a saved view (first page, default size), as the list writes it. */
export function viewUrlQuery(q: SavedViewQuery): string {
  const state: DevicesUrlState = {
    ...NO_FILTER,
    page: 0,
    size: DEFAULT_PAGE_SIZE,
    sort: "deviceId",
    order: "asc",
  };
  return devicesUrlQuery({ ...state, ...readDevicesUrl(new URLSearchParams(q as Record<string, string>)) });
}

/** An old local view's query (a URL query string) as the server keeps it. */
export const localViewQuery = (v: LocalView): SavedViewQuery =>
  viewQueryOf(readDevicesUrl(new URLSearchParams(v.query)));

/** The label of a view in the menu: one's own by name; shared ones say so, and whose they are. */
export function viewLabel(v: SavedView, me: string | null): string {
  if (v.owner !== me) return `${v.name} (shared by ${v.owner})`;
  return v.shared ? `${v.name} (shared)` : v.name;
}
