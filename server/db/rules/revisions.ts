/** Entity tags from revisions, and the If-Match check every engine makes inside the writing transaction. */
import { PreconditionFailedError } from "../errors.ts";

/**
 * What a conditional write expects (an HTTP If-Match, parsed): "*" for any current version of the entity, or a list
 * of entity tags of which the current one must be one. Weak tags never match, so they are not in the list.
 *
 * Devices, product types and device types carry a revision that every change of the entity moves, in the writing
 * transaction; their `etag` is that revision quoted (etagOf below). Revisions are drawn from one growing
 * sequence for the whole database (SQLite: the 'revisions' counter row; PostgreSQL: a SEQUENCE), so an entity's tag
 * never comes back, not even for a device deleted and checked in again.
 */
export type IfMatch = "*" | readonly string[];

/** The strong entity tag of a revision, quoted as in an ETag header: `"17"`. */
export const etagOf = (revision: number) => `"${revision}"`;

/** True when a conditional write may go ahead on an entity whose tag is `etag` (no condition, `*`, or it is listed). */
export const ifMatchHolds = (ifMatch: IfMatch | undefined, etag: string) =>
  ifMatch === undefined || ifMatch === "*" || ifMatch.includes(etag);

/** The refusal of a stale write; `what` names the entity as the operator knows it ("Product type Baby"). */
export const changedSinceLoaded = (what: string) =>
  `${what} was changed by someone else since you loaded it: reload it to see the current version, then apply your change again.`;

/** PreconditionFailedError unless the condition holds for the entity's current tag. */
export function checkIfMatch(ifMatch: IfMatch | undefined, etag: string, what: string): void {
  if (!ifMatchHolds(ifMatch, etag)) throw new PreconditionFailedError(changedSinceLoaded(what));
}
