import { type Db, sql } from "./open.ts";

/**
 * The next value of the database-wide revision sequence (the `revisions` counter row, schema.ts), for entities changed
 * in the caller's transaction (one write may give it to several, e.g. the devices losing a module). New rows get theirs
 * from the insert triggers.
 */
export function nextRevision(db: Db): number {
  const row = sql(db, "UPDATE change_counters SET value = value + 1 WHERE name = 'revisions' RETURNING value").get();
  return (row as { value: number }).value;
}
