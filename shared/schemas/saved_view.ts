/**
 * Saved views of the devices list, kept on the server per operator (issue 20; docs/DECISIONS.md, "Saved views"): a
 * name, the list's filters and sort, and whether the other operators see it too. The query is checked with the very
 * filter and sort schemas GET devices takes, so a saved view always opens.
 */
import * as z from "zod";
import { Id, Name, Timestamp } from "./common.ts";
import { DEVICE_SORTS, DeviceFilter, DeviceSortOrder } from "./device.ts";

/** How many views one operator may keep (shared ones included). */
export const MAX_SAVED_VIEWS = 50;
/** A saved view's name: a readable name of at most this many characters, unique per operator ignoring case. */
export const MAX_VIEW_NAME = 100;

export const SavedViewName = Name.pipe(z.string().max(MAX_VIEW_NAME, `is at most ${MAX_VIEW_NAME} characters`));

/** What a view shows: GET devices' filters and sort (members left out are not filtered / the default sort). */
export const SavedViewQuery = z.strictObject({
  ...DeviceFilter.shape,
  sort: z.enum(DEVICE_SORTS).optional(),
  order: DeviceSortOrder.optional(),
});
export type SavedViewQuery = z.infer<typeof SavedViewQuery>;

export const SavedView = z.object({
  _id: Id,
  name: z.string(),
  query: SavedViewQuery,
  /** True: every signed-in operator sees it (read-only unless theirs). */
  shared: z.boolean(),
  /** The owner's e-mail address. */
  owner: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type SavedView = z.infer<typeof SavedView>;

export const NewSavedView = z.strictObject({
  name: SavedViewName,
  query: SavedViewQuery,
  shared: z.boolean().optional(),
});
export type NewSavedView = z.input<typeof NewSavedView>;

/** PATCH saved_views/{id}: rename, share or unshare, or replace the query (its owner only). */
export const SavedViewPatch = z.strictObject({
  name: SavedViewName.optional(),
  query: SavedViewQuery.optional(),
  shared: z.boolean().optional(),
}).refine((p) => Object.keys(p).length > 0, "must change at least one of name, query, shared");
export type SavedViewPatch = z.input<typeof SavedViewPatch>;

/** A column of the devices list, as the console names it (the console ignores ids it does not know). */
export const ColumnId = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, "must be a column id (letters, digits, _)");

/** An operator's console preferences, kept on the server so they follow the operator to any browser. */
export const Preferences = z.object({
  /** The devices list's shown columns, in order; null: the default columns (the specification's seven). */
  deviceColumns: z.array(z.string()).nullable(),
});
export type Preferences = z.infer<typeof Preferences>;

export const PreferencesPatch = z.strictObject({
  deviceColumns: z.array(ColumnId).max(40, "has more than 40 entries").refine(
    (ids) => new Set(ids).size === ids.length,
    "must not contain duplicates",
  ).nullable().optional(),
}).refine((p) => Object.keys(p).length > 0, "must change at least one member (deviceColumns)");
export type PreferencesPatch = z.input<typeof PreferencesPatch>;
