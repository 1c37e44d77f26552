/**
 * The PostgreSQL engine's connection pool, migrations and transaction helpers.
 *
 * Concurrency model (docs/DECISIONS.md, "PostgreSQL"): every write transaction first takes one transaction-level
 * advisory lock (WRITE_LOCK), so writes are serialized across every replica exactly as SQLite's single writer
 * serializes them; a check-then-write therefore sees no concurrent change between its check and its write, and the
 * same engine-independent rules decide. Reads never take it: a one-statement read is one snapshot, a read of several
 * statements runs in one REPEATABLE READ READ ONLY transaction.
 */
import postgres from "postgres";
import { NewerSchemaError, StoreUnavailableError } from "../errors.ts";
import { MIGRATIONS } from "../migrations/postgres.ts";
import { Sockets } from "./watchdog.ts";
import { driverUrl, negotiated, tlsSettings } from "./tls.ts";

export type Sql = postgres.Sql<{ bigint: number }>;
/** A transaction's connection (or the pool) to run statements on. */
export type Tx = Sql;

/** Advisory lock keys (one namespace for this application). */
const MIGRATE_LOCK = 0x6a65_0001;
const STARTUP_LOCK = 0x6a65_0002;
export const WRITE_LOCK = 0x6a65_0003;

export interface PostgresOptions {
  url: string;
  /** Connections in this process's pool. */
  poolSize: number;
  /** How long a new connection may take before the call fails as unavailable (seconds). */
  connectTimeoutSeconds?: number;
}

/**
 * How long PostgreSQL may take before a call fails as unavailable (503), per connection (docs/REQUIREMENTS.md §19). A frozen
 * server, which answers nothing, is the watchdog's (watchdog.ts). Each can be changed in DATABASE_URL's query
 * (`?statement_timeout=30000`), which wins over these (docs/SCALING.md).
 */
export const TIMEOUTS = {
  /** A new connection: the watchdog ends it sooner if the server answers nothing; this bounds a slow start. */
  connectSeconds: 5,
  /** One statement: a backstop against a runaway query (a rollout start at 100,000 devices takes ~1.6 s). */
  statementMs: 10_000,
  /**
   * A wait for a lock held that long: its holder is stuck (a replica frozen inside a write, ended at
   * idleInTransactionMs). Not shorter: every write takes the one write lock, so a burst of healthy writes waits in line
   * (66 at once across two replicas waited over 1.5 s on the loaded test machine).
   */
  lockMs: 5_000,
  /** A transaction left idle (its process frozen or gone): ended, its locks released. */
  idleInTransactionMs: 5_000,
  /** How long a connection that failed waits before it connects again (the driver backs off up to 20 s). */
  reconnectSeconds: 0.1,
};

/**
 * A start-up parameter of 1 KB (a custom setting nothing reads), so that each connection's start-up message is written
 * at once. npm postgres 3.4.9 buffers a write for the next turn (setImmediate) and, when a connection is ended or its
 * socket closes before that turn (terminate(), closed(): the watchdog ending a pool mid-statement), clears that timer
 * without forgetting it: from then on the connection only writes once 1 KB is buffered, so its next start-up message is
 * never sent and every call queued on it waits for connect_timeout (5 s after a frozen database's return:
 * docs/DECISIONS.md, "Frozen PostgreSQL: back within 2 s"). A message of 1 KB is written at once, which forgets the
 * timer; the bytes left from before go out ahead of it, and the server refuses that one connection (an invalid start-up
 * packet): the driver connects again at once, cleanly.
 */
export const STARTUP_PAD = { "console.startup_pad": "x".repeat(1024) };

export interface PoolOptions {
  /** The pool's sockets (watchdog.ts), so that the watchdog can end them. */
  sockets?: Sockets;
  /** Idle connections are closed after this long (seconds; 0: kept). */
  idleTimeoutSeconds?: number;
  /** 0: no limit (a pool whose transactions wait on their client, such as the streamed lists'). */
  idleInTransactionMs?: number;
}

export function connect(options: PostgresOptions, pool: PoolOptions = {}): Sql {
  const closes = new Set<() => void>();
  const connectSeconds = options.connectTimeoutSeconds ?? TIMEOUTS.connectSeconds;
  // TLS (sslmode) is negotiated on our sockets, not by the driver (tls.ts).
  const tls = tlsSettings(options.url);
  const sockets = pool.sockets ?? (tls ? new Sockets() : undefined);
  const socket = sockets && tls
    ? (o: Parameters<Sockets["create"]>[0]) => {
      const raw = sockets.create(o);
      return negotiated(raw, tls, connectSeconds * 1000, (secure) => sockets.adopt(raw, secure));
    }
    : sockets?.create;
  const sql = postgres(driverUrl(options.url), {
    max: options.poolSize,
    connect_timeout: connectSeconds,
    idle_timeout: pool.idleTimeoutSeconds ?? 60,
    max_lifetime: 30 * 60,
    backoff: () => TIMEOUTS.reconnectSeconds,
    ...(socket ? { socket } : {}),
    ...(tls ? { ssl: false } : {}),
    onnotice: () => {},
    onclose: () => closes.forEach((heard) => heard()),
    // BIGINT as a JS number: counts, sizes and revisions stay far below 2^53.
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (x: number) => String(x),
        parse: (x: string) => Number(x),
      },
    },
    // The console's tables live in memory (or on SSD): a row visit costs about what an index step does, where
    // PostgreSQL's default random_page_cost of 4 models a disk seek. With 1.1 the planner walks the index that holds
    // a fleet view's sort instead of sorting every match (docs/DECISIONS.md, "Fleet views").
    connection: {
      ...STARTUP_PAD,
      application_name: "console",
      random_page_cost: "1.1",
      // No JIT: the console's statements are short reads and writes; a compile (~10 ms and more) costs more than any of
      // them runs, and a fleet view's plan crosses jit_above_cost as the fleet grows (docs/DECISIONS.md, "Fleet
      // views: the tail on PostgreSQL").
      jit: "off",
      statement_timeout: TIMEOUTS.statementMs,
      lock_timeout: TIMEOUTS.lockMs,
      // 0 (no limit) is the server's default: the driver leaves a 0 out of the start-up message.
      idle_in_transaction_session_timeout: pool.idleInTransactionMs ?? TIMEOUTS.idleInTransactionMs,
    },
  }) as unknown as Sql;
  closeListeners.set(sql, closes);
  return sql;
}

/** Each pool's listeners for "one of its connections closed" (the driver's onclose option). */
const closeListeners = new WeakMap<Sql, Set<() => void>>();

/**
 * sql.reserve(), asked once more each time a connection of the pool closes while it waits: the driver hands the first
 * waiting call to the closed connection's reconnect, which drops a reservation when it succeeds (npm postgres 3.4.9), so
 * that waiter would wait for ever. The first answer wins; a connection reserved after it goes back to the pool at once.
 * `signal` (the watchdog's verdict that the server is gone: runner.ts) fails the wait at once: nothing was sent yet, and
 * a connection the driver hands over later goes back to the pool unused.
 */
function reserve(sql: Sql, signal?: AbortSignal): Promise<postgres.ReservedSql<{ bigint: number }>> {
  const closes = closeListeners.get(sql);
  if (!closes && !signal) return sql.reserve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let settled = false;
    const settle = () => {
      settled = true;
      closes?.delete(heard);
      signal?.removeEventListener("abort", aborted);
    };
    const ask = () => {
      sql.reserve().then((conn) => {
        if (settled) return conn.release();
        settle();
        resolve(conn);
      }, (err) => {
        if (settled) return;
        settle();
        reject(err);
      });
    };
    const aborted = () => {
      if (settled) return;
      settle();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", aborted);
    // On a later turn: the driver is still handling the close, and would connect that connection twice.
    const heard = () => setTimeout(() => settled || ask(), 0);
    closes?.add(heard);
    ask();
  });
}

/** Waits without a limit on this connection (migrations and the start-up lock wait for another replica's). */
async function unlimited(conn: postgres.ReservedSql): Promise<void> {
  await conn`SET lock_timeout = 0`;
  await conn`SET statement_timeout = 0`;
}

/** The pool's limits back on a connection that unlimited() lifted. */
async function limited(conn: postgres.ReservedSql): Promise<void> {
  await conn`RESET lock_timeout`.catch(() => {});
  await conn`RESET statement_timeout`.catch(() => {});
}

/** Applies the migrations under an advisory lock; NewerSchemaError (nothing touched) for a newer database. */
export async function migrate(sql: Sql): Promise<void> {
  const conn = await sql.reserve();
  try {
    await unlimited(conn);
    await conn`SELECT pg_advisory_lock(${MIGRATE_LOCK})`;
    try {
      await conn`CREATE TABLE IF NOT EXISTS schema_version (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), version INTEGER NOT NULL)`
        .catch(async (err) => {
          // Without CREATE rights on a database that has the table already, carry on.
          const [{ exists }] = await conn`SELECT to_regclass('schema_version') IS NOT NULL AS exists`;
          if (!exists) throw err;
        });
      const rows = await conn`SELECT version FROM schema_version`;
      const version = rows.length ? Number(rows[0].version) : 0;
      if (version > MIGRATIONS.length) {
        throw new NewerSchemaError(
          `The PostgreSQL database has schema version ${version}, newer than this release knows (${MIGRATIONS.length}): run the newer release, or restore a backup taken before the upgrade.`,
        );
      }
      for (let v = version; v < MIGRATIONS.length; v++) {
        await conn`BEGIN`;
        try {
          await conn.unsafe(MIGRATIONS[v]);
          await conn`INSERT INTO schema_version (version) VALUES (${v + 1})
                     ON CONFLICT (one) DO UPDATE SET version = excluded.version`;
          await conn`COMMIT`;
        } catch (err) {
          await conn`ROLLBACK`.catch(() => {});
          throw err;
        }
      }
    } finally {
      await conn`SELECT pg_advisory_unlock(${MIGRATE_LOCK})`.catch(() => {});
      await limited(conn);
    }
  } finally {
    conn.release();
  }
}

/** Runs fn while holding the start-up lock (bootstrap admin, device type, secret, demo seed: once across replicas). */
export async function exclusive<T>(sql: Sql, fn: () => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  try {
    await unlimited(conn);
    await conn`SELECT pg_advisory_lock(${STARTUP_LOCK})`;
    try {
      return await fn();
    } finally {
      await conn`SELECT pg_advisory_unlock(${STARTUP_LOCK})`.catch(() => {});
      await limited(conn);
    }
  } finally {
    conn.release();
  }
}

/** A transaction's statements: the connection reserved for it (transaction() below). */
export type TxSql = Sql;

/** The driver's connection as its `onexecute` hook hands it over (npm postgres 3.4.9, src/connection.js). */
interface DriverConnection {
  /** Called once when the connection closes (its socket ended, or the server ended the session). */
  onclose: ((err: Error) => void) | null;
  /** Ends the socket: the server rolls back whatever was open on it; the pool connects afresh when it needs to. */
  terminate(): void;
}

/** A transaction open on a connection reserved for it (begin()). */
export interface Transaction {
  /** Its statements (tagged templates, unsafe(), cursors). */
  tx: TxSql;
  /** `call` (a statement or a body on tx), failing as soon as the connection closes. */
  until<R>(call: Promise<R>): Promise<R>;
  /** COMMIT, and the connection back to the pool; when it fails, as end(). */
  commit(): Promise<void>;
  /** ROLLBACK and the connection back to the pool; after `err` that broke the connection, it is ended instead. */
  end(err?: unknown): Promise<void>;
}

/**
 * BEGIN (with `options`) on a connection reserved for the transaction; the connection goes back to the pool only once
 * a COMMIT or a ROLLBACK ended the transaction. transaction() is the usual way; a stream, whose body is not one
 * function, uses this.
 *
 * Why not the driver's `sql.begin()`: npm postgres 3.4.9 reserves begin()'s connection in a hook that it skips when the
 * BEGIN is the query that fills the connection's pipeline, so PostgreSQL is inside a transaction on a connection the
 * pool hands to other queries (they run inside it; the driver throws UNSAFE_TRANSACTION). `sql.reserve()` only takes an
 * idle connection, or waits for one (docs/DECISIONS.md, "The PostgreSQL driver's transaction race").
 *
 * A connection whose ROLLBACK is not confirmed is never released: one the driver saw close is out of the pool already
 * (releasing it would put a closed connection in the pool's idle list), one still open is ended. Nothing is sent on a
 * connection that failed: the driver would keep that statement as pending on the connection it opens in its place.
 */
export async function begin(sql: Sql, options = "", signal?: AbortSignal): Promise<Transaction> {
  const conn = await reserve(sql, signal);
  let driver: DriverConnection | undefined;
  let lost: Error | undefined;
  let onLost!: (err: Error) => void;
  const closed = new Promise<never>((_, reject) => onLost = reject);
  closed.catch(() => {});
  // The connection object, to hear when it closes (as the driver's sql.begin() does): a statement sent on a connection the driver has
  // seen close is never answered. (With max_pipeline=0, a test's setting, the driver never calls this hook.)
  const onexecute = (c: DriverConnection) => {
    if (driver === undefined) {
      driver = c;
      c.onclose = (err) => {
        lost = err;
        onLost(err);
      };
    }
    return true; // the driver reads it as "the connection can take more"
  };
  const until = <R>(call: Promise<R>) => Promise.race([call, closed]);
  let ended = false;
  const release = () => {
    if (driver) driver.onclose = null;
    conn.release();
  };
  const end = async (err?: unknown) => {
    if (ended) return;
    ended = true;
    if (lost) return;
    if (!connectionFailed(err) && await until(conn`ROLLBACK`).then(() => true, () => false)) release();
    else if (!lost) driver?.terminate();
  };
  const commit = async () => {
    try {
      await until(conn`COMMIT`);
    } catch (err) {
      await end(err);
      throw err;
    }
    ended = true;
    release();
  };
  try {
    await until(conn.unsafe(`BEGIN ${options}`, [], { onexecute } as postgres.UnsafeQueryOptions));
  } catch (err) {
    await end(err);
    throw err;
  }
  // The body's statements: none is sent once the connection closed (a body that awaited something else meanwhile).
  const guard = () => {
    if (lost) throw lost;
  };
  const tx = new Proxy(conn, {
    apply: (target, self, args) => (guard(), Reflect.apply(target, self, args)),
    get: (target, key) =>
      key === "unsafe"
        ? (...args: Parameters<Sql["unsafe"]>) => (guard(), target.unsafe(...args))
        : Reflect.get(target, key),
  });
  return { tx, until, commit, end };
}

/**
 * Runs `fn` inside one transaction (begin()): committed when it resolves, rolled back when it fails. `signal` fails the
 * wait for its connection (reserve()); once BEGIN is sent it has no effect.
 */
export async function transaction<T>(
  sql: Sql,
  options: string,
  fn: (tx: TxSql) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const t = await begin(sql, options, signal);
  let result: T;
  try {
    result = await t.until(fn(t.tx));
  } catch (err) {
    await t.end(err);
    throw err;
  }
  await t.commit();
  return result;
}

/** The connection itself failed, as opposed to its statement (statement or lock timeout: rolled back as usual). */
function connectionFailed(err: unknown): boolean {
  const { code, severity } = (err ?? {}) as { code?: string; severity?: string };
  return severity === "FATAL" || severity === "PANIC" || (isUnavailable(err) && code !== "57014" && code !== "55P03");
}

/** A write transaction: serialized with every other write on the database (see above). */
export function write<T>(sql: Sql, fn: (tx: TxSql) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return transaction(sql, "", async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`;
    return await fn(tx);
  }, signal);
}

/**
 * write() for a function that only reads and writes the database (so it can run again): a deadlock PostgreSQL breaks
 * (40P01) is retried. Device writes hold the kept counters' rows (device_group_counts, taken by statement triggers)
 * while a check-in of a new device may take the same rows in another order: one of them is broken, and run again.
 */
export function writeRetried<T>(sql: Sql, fn: (tx: TxSql) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return retried(() => write(sql, fn, signal), ["40P01"]);
}

/** Runs `attempt` again (at most 5 times in all) while it fails with one of these PostgreSQL error codes. */
async function retried<T>(attempt: () => Promise<T>, codes: readonly string[]): Promise<T> {
  for (let n = 1;; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= 5 || !codes.includes((err as { code?: string }).code ?? "")) throw err;
    }
  }
}

/**
 * A transaction that does not take the write lock: for a write that checks nothing before it writes (a check-in's
 * upsert of its own row), so that it never waits behind a long write (an import's publish). Row locks order it
 * against the rest; a deadlock PostgreSQL breaks (40P01, e.g. against the demo seed) is retried.
 */
export function unlocked<T>(sql: Sql, fn: (tx: TxSql) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return retried(() => transaction(sql, "", fn, signal), ["40P01", "40001"]);
}

/** A transaction serialized with the others on the same key (two-int advisory lock namespace 0x6a65). */
export function keyed<T>(sql: Sql, key: string, fn: (tx: TxSql) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return transaction(sql, "", async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${0x6a65}, hashtext(${key}))`;
    return await fn(tx);
  }, signal);
}

/** A read of several statements against one snapshot. */
export function read<T>(sql: Sql, fn: (tx: TxSql) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return transaction(sql, "ISOLATION LEVEL REPEATABLE READ READ ONLY", fn, signal);
}

/** True for PostgreSQL's unique violation. */
export const isUniqueViolation = (err: unknown) => err instanceof postgres.PostgresError && err.code === "23505";

/** Errors that mean the database cannot be reached (or is going away), as opposed to a refused statement. */
const UNAVAILABLE_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EPIPE",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down)
  "53300", // too_many_connections
  "57014", // query_canceled: statement_timeout
  "55P03", // lock_not_available: lock_timeout
  "25P03", // idle_in_transaction_session_timeout
]);

export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code ?? "";
  if (UNAVAILABLE_CODES.has(code) || code.startsWith("08")) return true;
  return err instanceof Deno.errors.ConnectionRefused || err instanceof Deno.errors.ConnectionReset ||
    err instanceof Deno.errors.TimedOut || err instanceof Deno.errors.BrokenPipe ||
    /ECONNREFUSED|connection (refused|closed|terminated|ended)|write after end/i.test(err.message);
}

export function unavailable(err: unknown): StoreUnavailableError {
  const e = new StoreUnavailableError("The database is unavailable: try again in a moment.");
  (e as { cause?: unknown }).cause = err;
  return e;
}
