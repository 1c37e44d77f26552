/**
 * The PostgreSQL runner (runner.ts): drives a store operation on the pool, a transaction's body on its connection
 * (open.ts: write under the write lock, ...), each call under the watchdog; SQL's `?` placeholders become `$1, $2, ...`
 * once per text.
 */
import postgres from "postgres";
import type { Dialect, Engine, Op, Q, TxKind } from "../runner.ts";
import { StorageFullError } from "../errors.ts";
import {
  isUnavailable,
  isUniqueViolation,
  keyed,
  read,
  type Sql,
  type Tx,
  unavailable,
  unlocked,
  write,
  writeRetried,
} from "./open.ts";
import type { Watchdog } from "./watchdog.ts";
import { BUCKET } from "./firmware_keys.ts";

export const POSTGRES: Dialect = {
  engine: "postgres",
  forUpdate: " FOR UPDATE",
  forKeyShare: " FOR KEY SHARE",
  nextRevision: "SELECT nextval('revisions') AS value",
  rowsPerInsert: 500,
  tieBreak: (table) => table === "firmwares" ? "seq" : "id",
  bool: (b) => b,
  isTrue: (c) => c,
  isFalse: (c) => `NOT ${c}`,
  bytewise: ' COLLATE "C"',
  writableCte: true,
  list: (ids) => ids,
  inList: (expr) => `${expr} = ANY(?::text[])`,
  bucket: BUCKET,
  isUniqueViolation,
};

const numberedTexts = new Map<string, string>();

/** `text` with its `?` placeholders as $1, $2, ... (cached: a store's texts are few). */
export function numbered(text: string): string {
  let out = numberedTexts.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    if (numberedTexts.size >= 5000) numberedTexts.clear();
    numberedTexts.set(text, out);
  }
  return out;
}

/** Prepared as the driver's tagged templates are (the extended protocol, even without parameters). */
const PREPARED = { prepare: true, simple: false };

type TxSql = postgres.TransactionSql<{ bigint: number }>;

function begin<T>(pool: Sql, kind: TxKind, key: string, body: (tx: TxSql) => Promise<T>): Promise<T> {
  switch (kind) {
    case "write":
      return write(pool, body);
    case "retried":
      return writeRetried(pool, body);
    case "unlocked":
      return unlocked(pool, body);
    case "keyed":
      return keyed(pool, key, body);
    case "read":
      return read(pool, body);
  }
}

/** Runs `q` to its end on `conn` (the pool, or a transaction's connection when `inTx`). */
async function drive<T>(pool: Sql, conn: Tx, inTx: boolean, q: Q<T>): Promise<T> {
  let input: unknown = undefined;
  let failed = false;
  for (;;) {
    const step = failed ? q.throw(input) : q.next(input);
    if (step.done) return step.value;
    const op: Op = step.value;
    try {
      switch (op.kind) {
        case "all":
          input = await conn.unsafe(numbered(op.sql), op.params as never[], PREPARED);
          break;
        case "one":
          input = (await conn.unsafe(numbered(op.sql), op.params as never[], PREPARED))[0];
          break;
        case "run":
          input = (await conn.unsafe(numbered(op.sql), op.params as never[], PREPARED)).count;
          break;
        case "tx": {
          const body = op.body;
          input = inTx
            ? await drive(pool, conn, true, body())
            : await begin(pool, op.tx, op.key, (tx) => drive(pool, tx, true, body()));
          break;
        }
        case "dialect":
          input = POSTGRES;
          break;
      }
      failed = false;
    } catch (err) {
      input = err;
      failed = true;
    }
  }
}

/** PostgreSQL's disk_full (53100): the database server's storage is full (507). */
const isDiskFull = (err: unknown) => err instanceof postgres.PostgresError && err.code === "53100";

/**
 * "The database cannot be reached" as StoreUnavailableError (503) and "its disk is full" as StorageFullError (507),
 * so a caller never confuses either with a bug (500).
 */
export function mapPostgresError(err: unknown): unknown {
  if (isUnavailable(err)) return unavailable(err);
  if (isDiskFull(err)) return new StorageFullError("The database's disk is full: free space there, then try again.");
  return err;
}

export function postgresEngine(pool: Sql, watchdog?: Watchdog): Engine {
  const watch = <T>(call: Promise<T>): Promise<T> => watchdog ? watchdog.watch(call) : call;
  return {
    dialect: POSTGRES,
    run: <T>(q: Q<T>): Promise<T> =>
      watch(drive(pool, pool, false, q)).catch((err) => Promise.reject(mapPostgresError(err))),
    mapError: mapPostgresError,
    watch,
  };
}

/** Runs `q` inside the caller's transaction `tx` (an engine-specific store's step, e.g. the demo seed). */
export const driveIn = <T>(tx: Tx, q: Q<T>): Promise<T> => drive(tx as Sql, tx, true, q);
