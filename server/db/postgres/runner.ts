/**
 * The PostgreSQL runner (runner.ts): drives a store operation on the pool, a transaction's body on its connection
 * (open.ts: write under the write lock, ...), each call under the watchdog; SQL's `?` placeholders become `$1, $2, ...`
 * once per text.
 */
import postgres from "postgres";
import type { Dialect, Engine, Op, Param, Q, TxKind } from "../runner.ts";
import { StorageFullError } from "../errors.ts";
import {
  begin,
  isUnavailable,
  isUniqueViolation,
  keyed,
  read,
  type Sql,
  type Tx,
  type TxSql,
  unavailable,
  unlocked,
  write,
  WRITE_LOCK,
  writeRetried,
} from "./open.ts";
import { TRACE, type Watchdog } from "./watchdog.ts";

/**
 * rules/rollouts.ts's bucket() in SQL: the first 32 bits of sha256(rolloutId + ":" + deviceId), big-endian, over
 * 2^32, times 100, in float8 as JavaScript computes it (so a device sits on the same side of a stage's percentage).
 */
export const BUCKET = (id: string) =>
  `((('x' || substr(encode(sha256(convert_to(${id} || ':' || d.device_id, 'UTF8')), 'hex'), 1, 8))::bit(32)::bigint)::float8 / 4294967296.0::float8 * 100.0::float8)`;

export const POSTGRES: Dialect = {
  engine: "postgres",
  forUpdate: " FOR UPDATE",
  forKeyShare: " FOR KEY SHARE",
  nextRevision: "SELECT nextval('revisions') AS value",
  rowsPerInsert: 500,
  tieBreak: (table) => table === "operators" ? "id" : "seq",
  bool: (b) => b,
  isTrue: (c) => c,
  isFalse: (c) => `NOT ${c}`,
  bytewise: ' COLLATE "C"',
  writableCte: true,
  writeLock: `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`,
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

const TRANSACTIONS = { write, retried: writeRetried, unlocked, read };

function transact<T>(
  pool: Sql,
  kind: TxKind,
  key: string,
  body: (tx: TxSql) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  return kind === "keyed" ? keyed(pool, key, body, signal) : TRANSACTIONS[kind](pool, body, signal);
}

/** A plain read (no transaction): answering before it is cannot change anything. */
const isRead = (sql: string) => /^\s*SELECT\b/i.test(sql);

/** `call`, or the signal's reason as soon as it aborts (`call` itself runs on; its outcome is dropped). */
function unlessAborted<T>(call: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const aborted = () => reject(signal.reason);
    signal.addEventListener("abort", aborted, { once: true });
    call.then(resolve, reject).finally(() => signal.removeEventListener("abort", aborted));
  });
}

/**
 * Runs `q` to its end on `conn` (the pool, or a transaction's connection when `inTx`); `at` names its step. `signal`
 * (the watchdog's verdict that the server is gone) fails the call at once where it waits without having sent a write:
 * for a transaction's connection, or on a plain read; and before any statement it would send next.
 */
async function drive<T>(
  pool: Sql,
  conn: Tx,
  inTx: boolean,
  q: Q<T>,
  at?: { step: string },
  signal?: AbortSignal,
  first?: IteratorResult<Op, T>,
): Promise<T> {
  let input: unknown = undefined;
  let failed = false;
  for (;;) {
    const step = first ?? (failed ? q.throw(input) : q.next(input));
    first = undefined;
    if (step.done) return step.value;
    const op: Op = step.value;
    try {
      if (signal?.aborted && op.kind !== "dialect" && op.kind !== "turn") throw signal.reason;
      switch (op.kind) {
        case "all":
        case "one":
        case "run": {
          if (at) at.step = op.sql.replace(/\s+/g, " ").slice(0, 80);
          const sent = conn.unsafe(numbered(op.sql), op.params as never[], PREPARED);
          const rows = signal && !inTx && isRead(op.sql) ? await unlessAborted(sent, signal) : await sent;
          input = op.kind === "all" ? rows : op.kind === "one" ? rows[0] : rows.count;
          break;
        }
        case "tx": {
          const body = op.body;
          if (at && !inTx) at.step = `${op.tx} transaction: its connection and BEGIN`;
          input = inTx
            ? await drive(pool, conn, true, body(), at, signal)
            : await transact(pool, op.tx, op.key, (tx) => drive(pool, tx, true, body(), at, signal), signal);
          break;
        }
        case "dialect":
          input = POSTGRES;
          break;
        case "turn": // the awaits let the event loop run already
          input = undefined;
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

/** Rows per fetch of a stream's cursor. */
const CURSOR_ROWS = 200;

/**
 * A read through a cursor on a connection of `streams` (a pool of its own: a stream read as slowly as its client takes
 * it can never take every connection from the requests), inside one REPEATABLE READ READ ONLY transaction.
 */
async function* cursorRows(
  streams: Sql,
  text: string,
  params: Param[],
  signal?: AbortSignal,
): AsyncGenerator<unknown[][]> {
  const t = await begin(streams, "ISOLATION LEVEL REPEATABLE READ READ ONLY", signal);
  let failure: unknown = undefined;
  try {
    // Read at the client's pace: a slow client is not a stuck transaction (it holds a snapshot, no lock), so the
    // fail-fast limits meant for writes (docs/SCALING.md) do not cut it short.
    await t.until(t.tx`SET LOCAL idle_in_transaction_session_timeout = 0`);
    await t.until(t.tx`SET LOCAL statement_timeout = 0`);
    for await (const rows of t.tx.unsafe(numbered(text), params as never[]).cursor(CURSOR_ROWS)) {
      yield (rows as unknown as Record<string, unknown>[]).map((r) => Object.values(r));
    }
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    // A read-only snapshot: rolling it back ends it as a commit would.
    await t.end(failure);
  }
}

/**
 * A stream's batches with "cannot reach the database" as StoreUnavailableError (before the first batch: a 503); each
 * read of the database under the watch (the client's own pace is not).
 */
async function* watched<T>(
  rows: AsyncIterable<T>,
  watch: <R>(call: Promise<R>) => Promise<R>,
  refuse: () => void,
): AsyncGenerator<T> {
  const it = rows[Symbol.asyncIterator]();
  let done = false;
  try {
    refuse();
    for (;;) {
      const step = await watch(it.next());
      if (step.done) {
        done = true;
        return;
      }
      yield step.value;
    }
  } catch (err) {
    done = true;
    throw mapPostgresError(err);
  } finally {
    if (!done) await watch(Promise.resolve(it.return?.())).catch(() => {});
  }
}

/** The engine on `pool`; its streams read from `streams` (by default the pool itself). */
export function postgresEngine(pool: Sql, watchdog?: Watchdog, streams: Sql = pool): Engine {
  const watch = <T>(call: Promise<T>): Promise<T> => watchdog ? watchdog.watch(call) : call;
  const refuse = () => watchdog?.refuse();
  /** A call under the watch, and the signal its verdict aborts. */
  const abortable = () => {
    const verdict = new AbortController();
    return {
      signal: verdict.signal,
      watch: <T>(call: Promise<T>): Promise<T> => watchdog ? watchdog.watch(call, (err) => verdict.abort(err)) : call,
    };
  };
  return {
    dialect: POSTGRES,
    run: <T>(q: Q<T>): Promise<T> => {
      try {
        refuse();
      } catch (err) {
        return Promise.reject(mapPostgresError(err));
      }
      // Its first step at once: a call answered before any statement (a quiet poll's answer from memory) ends here,
      // without the watch, its signal and the async steps a call to the database costs.
      let first: IteratorResult<Op, T>;
      try {
        first = q.next(undefined);
      } catch (err) {
        return Promise.reject(mapPostgresError(err));
      }
      if (first.done) return Promise.resolve(first.value);
      const at = TRACE ? { step: "start" } : undefined;
      const { signal, watch } = abortable();
      const call = watch(drive(pool, pool, false, q, at, signal, first));
      if (at) traceSlow(call, at);
      return call.catch((err) => Promise.reject(mapPostgresError(err)));
    },
    mapError: mapPostgresError,
    watch,
    refuse,
    stream: (text, ...params) => {
      const { signal, watch } = abortable();
      return watched(cursorRows(streams, text, params, signal), watch, refuse);
    },
  };
}

/** With POSTGRES_TRACE=1 (watchdog.ts), a store call this slow is printed with the step it waited on and its end. */
const TRACE_SLOW_MS = 1_000;

function traceSlow(call: Promise<unknown>, at: { step: string }): void {
  const started = Date.now();
  const report = (how: string) => {
    const ms = Date.now() - started;
    if (ms >= TRACE_SLOW_MS) {
      console.error(
        `POSTGRES_TRACE ${new Date(started).toISOString()} slow store call ${ms} ms (${how}) at: ${at.step}`,
      );
    }
  };
  call.then(() => report("ok"), (err) => report(`failed ${(err as { code?: string }).code ?? String(err)}`));
}
