/**
 * Reads a table of an import file in (owner, position, id) order a batch of rows at a time, so the memory a table takes
 * does not grow with its size.
 */
import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from "node:sqlite";
import { ApiHttpError } from "../errors.ts";

/** A row as an array: [rowid, ...the columns asked for]. */
export type Row = SQLOutputValue[];

const BATCH = 4096;

export function returnArrays(stmt: StatementSync): StatementSync {
  (stmt as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true); // in node:sqlite, not its types
  return stmt;
}

/** The rows of a statement made by returnArrays(). */
export const allRows = (stmt: StatementSync, ...params: SQLInputValue[]) => stmt.all(...params) as unknown as Row[];

/** Follows keys (owner, position, id) and says whether each is after the one before, as numbers. */
class OrderCheck {
  #owner = -Infinity;
  #position = -Infinity;
  #id = -Infinity;

  next(id: SQLOutputValue, owner: SQLOutputValue, position: SQLOutputValue): boolean {
    if (typeof id !== "number" || typeof owner !== "number" || typeof position !== "number") return false;
    const o = this.#owner, p = this.#position;
    if (owner < o || (owner === o && (position < p || (position === p && id <= this.#id)))) return false;
    this.#owner = owner, this.#position = position, this.#id = id;
    return true;
  }
}

/**
 * Feeds every row of `table` to the consumer `start()` makes, in (owner, position, id) order; `columns` are SQL
 * expressions, the first three being id, owner and position, and `rowid` the name the table's rowid answers to.
 *
 * Files are normally written in that order, so rows are read in stored (rowid) order, checking the order on the way.
 * When they are not in order, a fresh consumer gets them sorted by SQLite: only the rowids are sorted, then the rows are
 * read by rowid a batch at a time. A problem the consumer finds in stored order stands only when the rest of the table
 * is in order too, so the problem reported is always the first one in sorted order.
 */
export function eachRowInOrder(
  db: DatabaseSync,
  table: string,
  rowid: string,
  owner: string,
  columns: readonly string[],
  start: () => (row: Row) => void,
): void {
  const select = columns.join(", ");
  const stored = (what: string) => ({
    first: returnArrays(db.prepare(`SELECT ${rowid}, ${what} FROM ${table} ORDER BY ${rowid} LIMIT ${BATCH}`)),
    after: returnArrays(
      db.prepare(`SELECT ${rowid}, ${what} FROM ${table} WHERE ${rowid} > ? ORDER BY ${rowid} LIMIT ${BATCH}`),
    ),
  });
  const order = new OrderCheck();
  let rows = stored(select);
  let consume = start();
  let failure: ApiHttpError | null = null;
  let inOrder = true;
  let batch = allRows(rows.first);
  scan: while (batch.length) {
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i];
      if (!order.next(row[1], row[2], row[3])) {
        inOrder = false;
        break scan;
      }
      if (failure) continue;
      try {
        consume(row);
      } catch (err) {
        if (!(err instanceof ApiHttpError)) throw err;
        failure = err;
        rows = stored(columns.slice(0, 3).join(", ")); // from here on only the order is checked
        batch = allRows(rows.after, row[0] as number);
        continue scan;
      }
    }
    batch = allRows(rows.after, batch[batch.length - 1][0] as number);
  }
  if (inOrder) {
    if (failure) throw failure;
    return;
  }

  consume = start();
  const byRowid = returnArrays(
    db.prepare(`SELECT ${rowid}, ${select} FROM ${table} WHERE ${rowid} IN (SELECT value FROM json_each(?))`),
  );
  const rowids = sortedRowids(db, table, rowid, `${owner}, position, id`);
  for (let from = 0; from < rowids.length; from += BATCH) {
    const ids = rowids.subarray(from, from + BATCH);
    const found = new Map<SQLOutputValue, Row>();
    for (const row of allRows(byRowid, JSON.stringify(Array.from(ids)))) found.set(row[0], row);
    for (let i = 0; i < ids.length; i++) consume(found.get(ids[i])!);
  }
}

/** The rowids of a table in the given order (SQLite sorts; only the numbers come back, as one text). */
function sortedRowids(db: DatabaseSync, table: string, rowid: string, order: string): Float64Array {
  const { ids } = db.prepare(`SELECT group_concat(${rowid}, ',' ORDER BY ${order}) AS ids FROM ${table}`).get() as {
    ids: string | null;
  };
  if (!ids) return new Float64Array(0);
  let count = 1;
  for (let i = 0; i < ids.length; i++) if (ids.charCodeAt(i) === 44) count++;
  const out = new Float64Array(count);
  let n = 0, value = 0, sign = 1;
  for (let i = 0; i <= ids.length; i++) {
    const c = i < ids.length ? ids.charCodeAt(i) : 44;
    if (c === 44) {
      out[n++] = sign * value;
      value = 0, sign = 1;
    } else if (c === 45) sign = -1;
    else value = value * 10 + (c - 48);
  }
  return out;
}
