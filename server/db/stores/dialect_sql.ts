/**
 * The SQL fragments of the shared stores where the engines' SQL differs, beside the Dialect's own: ordered id lists
 * (SQLite passes and aggregates them as JSON text, PostgreSQL as arrays), JSON fields, null-safe equality.
 */
import type { Dialect } from "../runner.ts";

/** A correlated subquery's `column` values in `orderBy` order, as one column: read it with idList(). */
export function idListSql(d: Dialect, column: string, from: string, orderBy: string): string {
  return d.engine === "sqlite"
    ? `(SELECT json_group_array(${column} ORDER BY ${orderBy}) FROM ${from})`
    : `ARRAY(SELECT ${column} FROM ${from} ORDER BY ${orderBy})`;
}

/** The value of an idListSql() column. */
export const idList = (value: unknown): string[] => typeof value === "string" ? JSON.parse(value) : (value as string[]);

/**
 * The rows (value, position) of a list bound to its one `?` (Dialect.list()), position counting from 0: for
 * `INSERT ... SELECT ?, u.value, u.position FROM ${positioned(d)}`.
 */
export function positioned(d: Dialect): string {
  return d.engine === "sqlite"
    ? "(SELECT value, key AS position FROM json_each(?)) u"
    : "(SELECT value, n - 1 AS position FROM unnest(?::text[]) WITH ORDINALITY AS w(value, n)) u";
}

/** The rows (value) of a list bound to its one `?` (Dialect.list()). */
export const listRows = (d: Dialect): string =>
  d.engine === "sqlite" ? "(SELECT value FROM json_each(?))" : "(SELECT unnest(?::text[]) AS value)";

/** A text field of a JSON text column. */
export const jsonField = (d: Dialect, column: string, field: string): string =>
  d.engine === "sqlite" ? `json_extract(${column}, '$.${field}')` : `${column}::jsonb ->> '${field}'`;

/** `a` equals `b`, NULL equal to NULL. */
export const same = (d: Dialect, a: string, b: string): string =>
  d.engine === "sqlite" ? `${a} IS ${b}` : `${a} IS NOT DISTINCT FROM ${b}`;

/** Appended to a SELECT of a row the transaction will update but not re-key (PostgreSQL's lighter row lock). */
export const forNoKeyUpdate = (d: Dialect): string => d.engine === "sqlite" ? "" : " FOR NO KEY UPDATE";

/** SQLite's index hint (its planner otherwise picks a worse index for these reads); PostgreSQL has none. */
export const indexedBy = (d: Dialect, index: string): string => d.engine === "sqlite" ? ` INDEXED BY ${index}` : "";

/**
 * `column` LIKE the pattern bound to its `?`, folding ASCII case only on both engines (device ids are ASCII; SQLite's
 * LIKE folds ASCII, PostgreSQL's ascii_lower() of its schema does).
 */
export const likeAscii = (d: Dialect, column: string): string =>
  d.engine === "sqlite" ? `${column} LIKE ? ESCAPE '\\'` : `ascii_lower(${column}) LIKE ascii_lower(?) ESCAPE '\\'`;

/** The treatments' list order: case-insensitive (ASCII) name, ties by the exact name; the index treatments_list_order. */
export const treatmentNameOrder = (d: Dialect): string =>
  d.engine === "sqlite" ? "t.name COLLATE NOCASE, t.name" : "ascii_lower(t.name), t.name";

/** A value as a JSON text (a string quoted, NULL as null). */
export const jsonQuote = (d: Dialect, expr: string): string =>
  d.engine === "sqlite" ? `json_quote(${expr})` : `coalesce(to_json(${expr})::text, 'null')`;

/**
 * A text expression as the engine reads it fastest into bytes: SQLite hands a BLOB over as it is (no string made);
 * PostgreSQL's text is read as a string.
 */
export const asBytes = (d: Dialect, expr: string): string => d.engine === "sqlite" ? `CAST(${expr} AS BLOB)` : expr;
