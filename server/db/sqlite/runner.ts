/**
 * The SQLite runner (runner.ts): drives a store operation synchronously, to its end within the call, so a
 * transaction never spans an await and nothing else this process runs interleaves with it.
 */
import type { Dialect, Engine, Op, Q } from "../runner.ts";
import { BUCKET } from "./firmware_keys.ts";
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
  list: (ids) => JSON.stringify(ids),
  inList: (expr) => `${expr} IN (SELECT value FROM json_each(?))`,
  bucket: BUCKET,
  isUniqueViolation,
};

/** Runs `q` to its end: each statement as it is yielded, a transaction's body inside BEGIN ... COMMIT. */
export function drive<T>(db: Db, q: Q<T>): T {
  let input: unknown = undefined;
  let failed = false;
  for (;;) {
    const step = failed ? q.throw(input) : q.next(input);
    if (step.done) return step.value;
    const op: Op = step.value;
    try {
      switch (op.kind) {
        case "all":
          input = sql(db, op.sql).all(...op.params as (string | number | null)[]);
          break;
        case "one":
          input = sql(db, op.sql).get(...op.params as (string | number | null)[]);
          break;
        case "run":
          input = Number(sql(db, op.sql).run(...op.params as (string | number | null)[]).changes);
          break;
        case "tx":
          input = transaction(db, () => drive(db, op.body()), op.tx === "read" ? "DEFERRED" : "IMMEDIATE");
          break;
        case "dialect":
          input = SQLITE;
          break;
      }
      failed = false;
    } catch (err) {
      input = err;
      failed = true;
    }
  }
}

export function sqliteEngine(db: Db): Engine {
  return {
    dialect: SQLITE,
    run<T>(q: Q<T>): Promise<T> {
      try {
        return Promise.resolve(drive(db, q));
      } catch (err) {
        return Promise.reject(mapSqliteError(err));
      }
    },
    mapError: mapSqliteError,
    watch: (call) => call,
  };
}
