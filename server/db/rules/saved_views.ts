/** Saved views (docs/DECISIONS.md, "Saved views"): the rules and messages both engines share. */
import {
  MAX_SAVED_VIEWS,
  type Preferences,
  type SavedView,
  SavedViewQuery,
} from "../../../shared/schemas/saved_view.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";

/** Who acts on a view: its owner changes it; an admin may also delete a view another operator shared. */
export interface ViewActor {
  operatorId: string;
  admin: boolean;
}

/** The key a name is unique under, per operator: "Failed" and "failed " are one name. */
export const viewNameKey = (name: string) => name.trim().normalize("NFC").toLowerCase();

export const noView = (id: string) => `No saved view with id ${id}.`;
export const NOT_YOUR_VIEW = "This saved view is another operator's: only its owner changes it.";
export const NOT_YOUR_VIEW_DELETE =
  "This saved view is another operator's: only its owner (or an admin, once it is shared) deletes it.";
export const viewNameTaken = (name: string) =>
  `name: you already have a saved view named "${name}" (names are unique per operator, ignoring case).`;
export const TOO_MANY_VIEWS =
  `An operator keeps at most ${MAX_SAVED_VIEWS} saved views: delete one you no longer use first.`;

/** The stored row as both engines read it. */
export interface ViewRow {
  id: string;
  ownerId: string;
  owner: string;
  name: string;
  query: string;
  shared: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The query as stored: JSON of its members in a stable order, empty ones left out. */
export function storedQuery(query: SavedViewQuery): string {
  const parsed = SavedViewQuery.parse(query);
  const out: Record<string, string> = {};
  for (const key of Object.keys(SavedViewQuery.shape) as (keyof SavedViewQuery)[]) {
    const v = parsed[key];
    if (v !== undefined) out[key] = v;
  }
  return JSON.stringify(out);
}

export function viewOf(r: ViewRow): SavedView {
  return {
    _id: r.id,
    name: r.name,
    query: JSON.parse(r.query),
    shared: r.shared,
    owner: r.owner,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * Whether `by` may see a view: their own, or a shared one. A private view of another is "not found" (its existence is
 * nobody else's business), a shared one is "forbidden" unless the rule allows it.
 */
export function checkChange(row: ViewRow | null, id: string, by: ViewActor, kind: "change" | "delete"): ViewRow {
  if (!row || (row.ownerId !== by.operatorId && !row.shared)) throw new NotFoundError(noView(id));
  if (row.ownerId === by.operatorId) return row;
  if (kind === "delete" && by.admin) return row;
  throw new ForbiddenError(kind === "delete" ? NOT_YOUR_VIEW_DELETE : NOT_YOUR_VIEW);
}

/** A saved view as the target of an audit entry (an admin deleting another operator's shared view). */
export const viewTarget = (v: { _id: string; name: string }) => ({ type: "saved_view", id: v._id, name: v.name });
export const viewDetails = (v: SavedView) => ({ owner: v.owner, query: v.query, shared: v.shared });

export const preferencesOf = (deviceColumns: string | null | undefined): Preferences => ({
  deviceColumns: deviceColumns ? JSON.parse(deviceColumns) : null,
});
