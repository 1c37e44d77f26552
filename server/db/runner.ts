/**
 * How a store is written once for both engines (docs/DECISIONS.md, "One store, two engines").
 *
 * A store method is a generator function that yields what it wants of the database — a statement (`all`, `one`,
 * `run`), a transaction around a body (`write`, `read`, ...), the engine's `dialect()` — and gets the answer back at
 * its `yield*`. The rules between the statements (checks, errors, audit entries) are plain code, written once. Each
 * engine has a runner (an `Engine`) that drives such a method:
 * - SQLite (sqlite/runner.ts) synchronously, to its end within the call: a transaction never spans an await, and the
 *   statements are node:sqlite's prepared statements, cached per text;
 * - PostgreSQL (postgres/runner.ts) asynchronously on the pool, a transaction on one connection (a write under the
 *   one write lock), `?` turned into `$n` once per text, every call under the watchdog.
 * SQL is written once with `?` placeholders; where the engines' SQL differs, the text takes its fragment from the
 * `Dialect`. The engine's `run` is also the one place where driver errors become domain errors (StorageFullError,
 * StoreUnavailableError): no store maps them itself.
 */

/** A value bound to a `?`: a list of ids goes through Dialect.list(); bytes are a BLOB (BYTEA). */
export type Param = string | number | boolean | null | readonly string[] | Uint8Array;

/** A row as the driver gives it. */
export type Row = Record<string, unknown>;

/**
 * The kind of a transaction. On SQLite every kind but `read` is one IMMEDIATE transaction (one writer per file) and
 * `read` a DEFERRED one (one snapshot). On PostgreSQL (postgres/open.ts):
 * - `write`: takes the write lock first, so writes are serialized across replicas as SQLite serializes them;
 * - `retried`: `write`, run again when PostgreSQL breaks a deadlock (only for a body that touches nothing but the
 *   database);
 * - `unlocked`: no write lock (a write that checks nothing before it writes), deadlocks retried;
 * - `keyed`: serialized only with the transactions of the same key;
 * - `read`: REPEATABLE READ READ ONLY, one snapshot for several statements.
 * A transaction begun inside another joins it (whatever its kind).
 */
export type TxKind = "write" | "retried" | "unlocked" | "keyed" | "read";

/** What a store method yields to its engine. */
export type Op =
  | { readonly kind: "all" | "one" | "run"; readonly sql: string; readonly params: readonly Param[] }
  | { readonly kind: "tx"; readonly tx: TxKind; readonly key: string; readonly body: () => Q<unknown> }
  | { readonly kind: "dialect" }
  | { readonly kind: "turn" };

/** A store operation: a generator that yields Ops and returns T. */
export type Q<T> = Generator<Op, T, unknown>;

/** The SQL that differs between the engines; everything else is written once. */
export interface Dialect {
  readonly engine: "sqlite" | "postgres";
  /** Appended to a SELECT that reads a row it is about to change: " FOR UPDATE" (SQLite: "", its write holds the file). */
  readonly forUpdate: string;
  /** Appended to a SELECT of rows the transaction relies on staying: " FOR KEY SHARE" (SQLite: ""). */
  readonly forKeyShare: string;
  /** A SELECT answering the next value of the revision sequence as `value`. */
  readonly nextRevision: string;
  /** Whether an INSERT/UPDATE may sit in a WITH (PostgreSQL): saves a round trip. */
  readonly writableCte: boolean;
  /**
   * Rows per INSERT where many are added (SQLite: 1, its prepared statement run per row costs no round trip;
   * PostgreSQL: 500 per statement).
   */
  readonly rowsPerInsert: number;
  /**
   * The column that breaks ties of created_at as the engine always has: SQLite's rowid (insert order); PostgreSQL's
   * firmwares.seq (insert order), operators.id. For rollouts it is their creation order, and ranks them alone:
   * SQLite's rowid, PostgreSQL's rollouts.seq (docs/DECISIONS.md, "Rollouts newest first by creation order").
   */
  tieBreak(table: "firmwares" | "operators" | "rollouts"): string;
  /** A boolean as a parameter (SQLite: 1 or 0). */
  bool(b: boolean): Param;
  /** The condition "the boolean column is true" as the engine's partial indexes spell it (SQLite: `= 1`). */
  isTrue(column: string): string;
  /** The condition "the boolean column is false" (SQLite: `= 0`; PostgreSQL: NOT). */
  isFalse(column: string): string;
  /** Appended to a text column in ORDER BY for byte order (SQLite's default; PostgreSQL: COLLATE "C"). */
  readonly bytewise: string;
  /** A list of ids as one parameter, for inList(). */
  list(ids: readonly string[]): Param;
  /** The condition "expr is one of the list bound here" (one `?`, bound to list()). */
  inList(expr: string): string;
  /**
   * The statement that takes the write lock inside a transaction begun without it (PostgreSQL's advisory lock; SQLite:
   * "", its write transaction holds the file).
   */
  readonly writeLock: string;
  /** A device's bucket (0..100) in a rollout, as rules/rollouts.ts's bucket(); `d` is the devices row. */
  bucket(rolloutIdSql: string): string;
  /** True for the engine's UNIQUE constraint failure. */
  isUniqueViolation(err: unknown): boolean;
}

/** The runner of one engine: drives a store operation to its end. */
export interface Engine {
  readonly dialect: Dialect;
  /** Runs `q` (SQLite: to its end before returning); a driver error is answered as the domain's error (mapError). */
  run<T>(q: Q<T>): Promise<T>;
  /** The domain error a driver error stands for (StorageFullError, StoreUnavailableError), or the error itself. */
  mapError(err: unknown): unknown;
  /** The call's promise, under the engine's watch (PostgreSQL's watchdog; SQLite: as it is). */
  watch<T>(call: Promise<T>): Promise<T>;
  /** Throws, before a call is made, when it could only wait (PostgreSQL taken for frozen by its watchdog). */
  refuse?(): void;
  /**
   * The rows of one read (each row its values in column order), in batches, from one snapshot on a connection of the
   * reader's own, read at the reader's pace: the store's connection goes on writing meanwhile, and PostgreSQL's
   * transaction is exempt from the limits meant for writes (a slow client is not a stuck transaction). Stopping early
   * (return()) ends the transaction and gives the connection back.
   */
  stream(sql: string, ...params: Param[]): AsyncIterable<unknown[][]>;
}

/** Every row of a statement. */
export function* all<R = Row>(sql: string, ...params: Param[]): Q<R[]> {
  return (yield { kind: "all", sql, params }) as R[];
}

/** The first row of a statement, or undefined. */
export function* one<R = Row>(sql: string, ...params: Param[]): Q<R | undefined> {
  return (yield { kind: "one", sql, params }) as R | undefined;
}

/** Runs a statement that returns no rows; answers how many rows it changed. */
export function* run(sql: string, ...params: Param[]): Q<number> {
  return (yield { kind: "run", sql, params }) as number;
}

/** The engine's dialect. */
export function* dialect(): Q<Dialect> {
  return (yield { kind: "dialect" }) as Dialect;
}

/**
 * Lets the event loop run (requests, timers) before the operation goes on: between two transactions of a long
 * operation. Inside a transaction it does nothing (on SQLite a transaction never spans an await).
 */
export function* turn(): Q<void> {
  yield { kind: "turn" };
}

function* tx<T>(kind: TxKind, key: string, body: () => Q<T>): Q<T> {
  return (yield { kind: "tx", tx: kind, key, body }) as T;
}

/** A write transaction (serialized with every other write). */
export const write = <T>(body: () => Q<T>): Q<T> => tx("write", "", body);
/** A write transaction run again after a deadlock PostgreSQL broke: `body` must touch nothing but the database. */
export const writeRetried = <T>(body: () => Q<T>): Q<T> => tx("retried", "", body);
/** A transaction without the write lock, for a write that checks nothing first (see TxKind). */
export const unlocked = <T>(body: () => Q<T>): Q<T> => tx("unlocked", "", body);
/** A transaction serialized with the others of the same key only. */
export const keyed = <T>(key: string, body: () => Q<T>): Q<T> => tx("keyed", key, body);
/** Several reads against one snapshot. */
export const read = <T>(body: () => Q<T>): Q<T> => tx("read", "", body);

/** A store interface's methods as store operations. */
export type Methods<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Q<R> : never;
};

/** The store whose methods run `methods`' operations on `engine`. */
export function storeOf<S>(engine: Engine, methods: Methods<S>): S {
  const store: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(methods as Record<string, (...args: unknown[]) => Q<unknown>>)) {
    store[name] = (...args: unknown[]) => engine.run(fn(...args));
  }
  return store as S;
}

/**
 * An engine's own store (written for that engine alone, with its methods answering promises) under the same error
 * mapping as storeOf's.
 */
export function guarded<S extends object>(engine: Engine, store: S): S {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(store)) {
    if (typeof fn !== "function") {
      out[name] = fn;
      continue;
    }
    out[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        engine.refuse?.();
        result = fn.apply(store, args);
      } catch (err) {
        throw engine.mapError(err);
      }
      if (!(result instanceof Promise)) return result;
      return engine.watch(result).catch((err) => Promise.reject(engine.mapError(err)));
    };
  }
  return out as S;
}

/** The first of `ids` that is not a row of `table` (the rows found held until the transaction ends), or null. */
export function* firstMissingId(
  table: "treatments" | "modules" | "firmwares" | "product_types",
  ids: readonly string[],
): Q<string | null> {
  if (ids.length === 0) return null;
  const d = yield* dialect();
  const rows = yield* all<{ id: string }>(
    `SELECT id FROM ${table} WHERE ${d.inList("id")}${d.forKeyShare}`,
    d.list(ids),
  );
  const found = new Set(rows.map((r) => r.id));
  return ids.find((id) => !found.has(id)) ?? null;
}

/**
 * The next value of the database-wide revision sequence, for entities changed in the caller's transaction (one write
 * may give it to several); new rows get theirs from the insert triggers (server/db/migrations/).
 */
export function* nextRevision(): Q<number> {
  const d = yield* dialect();
  return Number((yield* one<{ value: number }>(d.nextRevision))!.value);
}
