/**
 * Saved views and the column choice, per operator, in this browser's localStorage (docs/DECISIONS.md, "Fleet
 * views": a server-side store per operator is the next step; the URL already carries a view across browsers).
 */
export interface SavedView {
  name: string;
  /** The devices list's URL query (filters and sort; no page). */
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

export const loadViews = (who: string | null): SavedView[] =>
  read<SavedView[]>(viewsKey(who), [], (v) =>
    Array.isArray(v) &&
    v.every((x) => typeof x?.name === "string" && typeof x?.query === "string"));

export function saveViews(who: string | null, views: SavedView[]): void {
  localStorage.setItem(viewsKey(who), JSON.stringify(views));
}

export const loadColumns = (who: string | null, fallback: string[]): string[] =>
  read<string[]>(columnsKey(who), fallback, (v) => Array.isArray(v) && v.every((x) => typeof x === "string"));

export function saveColumns(who: string | null, columns: string[]): void {
  localStorage.setItem(columnsKey(who), JSON.stringify(columns));
}
