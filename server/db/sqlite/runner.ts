/**
 * The SQLite runner (runner.ts): drives a store operation synchronously, to its end within the call, so a
 * transaction never spans an await and nothing else this process runs interleaves with it.
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { Dialect, Engine, Op, Param, Q } from "../runner.ts";
import { StorageFullError } from "../errors.ts";
import { type Db, isUniqueViolation, sql, transaction } from "./open.ts";

const SQLITE_FULL = 13;

export const FULL_MESSAGE = "The server's disk is full: the change was not saved. Free space on the server and retry.";

/** True for SQLite's full-database error, whatever its extended code (node:sqlite's exec() gives only the text). */
export function isSqliteFull(err: unknown): boolean {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  if (typeof code === "number") return (code & 0xff) === SQLITE_FULL;
  return err instanceof Error && (err as { code?: unknown }).code === "ERR_SQLITE_ERROR" &&
    /database or disk is full/i.test(err.message);
}

/** SQLite's "database or disk is full" (also a full disk under the WAL) as StorageFullError (507). */
export const mapSqliteError = (err: unknown) => isSqliteFull(err) ? new StorageFullError(FULL_MESSAGE) : err;

/** rules/rollouts.ts's bucket() in SQL: the function open.ts registers on the connection (the kept keys, rollouts). */
export const BUCKET = (id: string) => `rollout_bucket(${id}, d.device_id)`;

export const SQLITE: Dialect = {
  engine: "sqlite",
  forUpdate: "",
  forKeyShare: "",
  nextRevision: "UPDATE change_counters SET value = value + 1 WHERE name = 'revisions' RETURNING value",
  rowsPerInsert: 1,
  tieBreak: () => "rowid",
  bool: (b) => b ? 1 : 0,
  isTrue: (c) => `${c} = 1`,
  isFalse: (c) => `${c} = 0`,
  bytewise: "",
  writableCte: false,
  writeLock: "",
  list: (ids) => JSON.stringify(ids),
  inList: (expr) => `${expr} IN (SELECT value FROM json_each(?))`,
  bucket: BUCKET,
  isUniqueViolation,
};

/** One operation, done at once (a transaction's body driven to its end inside BEGIN ... COMMIT). */
function perform(db: Db, op: Exclude<Op, { kind: "turn" }>): unknown {
  switch (op.kind) {
    case "all":
      return sql(db, op.sql).all(...op.params as SQLInputValue[]);
    case "one":
      return sql(db, op.sql).get(...op.params as SQLInputValue[]);
    case "run":
      return Number(sql(db, op.sql).run(...op.params as SQLInputValue[]).changes);
    case "tx":
      return transaction(db, () => drive(db, op.body()), op.tx === "read" ? "DEFERRED" : "IMMEDIATE");
    case "dialect":
      return SQLITE;
  }
}

/**
 * Runs `q` to its end within the call, each statement as it is yielded; a turn yielded here (inside a transaction)
 * does nothing.
 */
export function drive<T>(db: Db, q: Q<T>): T {
  let input: unknown = undefined;
  let failed = false;
  for (;;) {
    const step = failed ? q.throw(input) : q.next(input);
    if (step.done) return step.value;
    const op: Op = step.value;
    try {
      input = op.kind === "turn" ? undefined : perform(db, op);
      failed = false;
    } catch (err) {
      input = err;
      failed = true;
    }
  }
}

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Runs `q` as drive() does, but a turn it yields outside any transaction lets the event loop run first: everything up
 * to the first turn (for most operations, everything) is done within the call.
 */
async function driveTurns<T>(db: Db, q: Q<T>): Promise<T> {
  let input: unknown = undefined;
  let failed = false;
  for (;;) {
    const step = failed ? q.throw(input) : q.next(input);
    if (step.done) return step.value;
    const op: Op = step.value;
    if (op.kind === "turn") {
      await nextTurn();
      input = undefined, failed = false;
      continue;
    }
    try {
      input = perform(db, op);
      failed = false;
    } catch (err) {
      input = err;
      failed = true;
    }
  }
}

/** A stream's batch ends at this many rows, or once its values hold this many bytes. */
const STREAM_ROWS = 256;
const STREAM_BYTES = 64 * 1024;

const sizeOf = (v: unknown) => typeof v === "string" ? v.length : v instanceof Uint8Array ? v.byteLength : 8;

/**
 * A read on a read-only connection of its own, inside one read transaction (one snapshot however long the reader
 * takes, while the main connection goes on writing); closed when the rows end or the reader stops.
 */
async function* stream(file: string, text: string, params: Param[]): AsyncGenerator<unknown[][]> {
  const reader = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    reader.exec("BEGIN");
    const rows = reader.prepare(text);
    (rows as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true); // in node:sqlite, not its types
    let batch: unknown[][] = [], bytes = 0;
    for (const row of rows.iterate(...params as SQLInputValue[]) as Iterable<unknown[]>) {
      batch.push(row);
      for (const v of row) bytes += sizeOf(v);
      if (batch.length === STREAM_ROWS || bytes >= STREAM_BYTES) yield batch, batch = [], bytes = 0;
    }
    if (batch.length) yield batch;
  } finally {
    reader.close();
  }
}

/** The file `db` was opened from. */
const fileOf = (db: Db) => String((sql(db, "PRAGMA main.database_list").get() as { file: string }).file);

/** The engine of the database `db` (streams open its file again, read-only). */
export function sqliteEngine(db: Db): Engine {
  return {
    dialect: SQLITE,
    async run<T>(q: Q<T>): Promise<T> {
      try {
        return await driveTurns(db, q);
      } catch (err) {
        throw mapSqliteError(err);
      }
    },
    mapError: mapSqliteError,
    watch: (call) => call,
    stream: (text, ...params) => stream(fileOf(db), text, params),
  };
}
