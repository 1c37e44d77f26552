/**
 * What a conditional write expects (an HTTP If-Match, parsed): "*" for any current version of the entity, or a list
 * of entity tags of which the current one must be one. Weak tags never match, so they are not in the list.
 *
 * Devices, product types and device types carry a revision that every change of the entity moves, in the writing
 * transaction; their `etag` is that revision quoted (rules/revisions.ts). Revisions are drawn from one growing
 * sequence for the whole database (SQLite: the 'revisions' counter row; PostgreSQL: a SEQUENCE), so an entity's tag
 * never comes back, not even for a device deleted and checked in again.
 */
export type IfMatch = "*" | readonly string[];
