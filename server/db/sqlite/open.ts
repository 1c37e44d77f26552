import { DatabaseSync, type StatementSync } from "node:sqlite";
import { NewerSchemaError } from "../errors.ts";
import { MIGRATIONS } from "../migrations/sqlite.ts";
import { bucket } from "../rules/rollouts.ts";

export type Db = DatabaseSync;

/** The database and its -wal and -shm files hold password hashes: only the server's user may read them. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes the file 0600 before SQLite opens it, whatever the umask: a new one is created so (SQLite would make it 0644),
 * an existing one is tightened. SQLite gives the -wal and -shm files it creates the database file's mode; ones left by
 * an earlier run are tightened once the database is open.
 */
function makePrivate(file: string, create: boolean): void {
  if (file === ":memory:" || Deno.build.os === "windows") return;
  try {
    // Only a file that does not exist yet is opened here: closing a descriptor of a database this process has open
    // would drop SQLite's locks on it.
    if (create) Deno.openSync(file, { write: true, createNew: true, mode: PRIVATE_FILE_MODE }).close();
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  }
  try {
    if ((Deno.statSync(file).mode! & 0o777) !== PRIVATE_FILE_MODE) Deno.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (err) {
    // Gone, or another user's file (left as it is: docs/OPERATIONS.md, "File modes").
    if (!(err instanceof Deno.errors.NotFound) && !(err instanceof Deno.errors.PermissionDenied)) throw err;
  }
}

/** Opens (creating if needed) the console database: WAL, foreign keys, migrations applied. */
export function openDatabase(file: string): Db {
  makePrivate(file, true);
  const db = new DatabaseSync(file, { enableForeignKeyConstraints: true, timeout: 5000 });
  try {
    schemaVersion(db, file); // before anything writes to the file (even the WAL switch)
    db.exec("PRAGMA journal_mode = WAL");
    for (const suffix of ["-wal", "-shm"]) makePrivate(file + suffix, false);
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA busy_timeout = 5000");
    // A device's bucket in a rollout (rules/rollouts.ts), so a fleet view's firmware filter decides as config does.
    db.function(
      "rollout_bucket",
      { deterministic: true },
      (rolloutId, deviceId) => bucket(String(rolloutId), String(deviceId)),
    );
    migrate(db, file);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

function schemaVersion(db: Db, file: string): number {
  const { user_version } = db.prepare("PRAGMA user_version").get() as { user_version: number };
  if (user_version > MIGRATIONS.length) {
    throw new NewerSchemaError(
      `The database in ${file} has schema version ${user_version}, newer than this release knows (${MIGRATIONS.length}): run the newer release, or restore a backup taken before the upgrade.`,
    );
  }
  return user_version;
}

/**
 * Applies the missing migrations, each in its own IMMEDIATE transaction that reads the version under the write lock:
 * processes opening one file at once migrate it once (the others find each step done).
 */
function migrate(db: Db, file: string): void {
  while (schemaVersion(db, file) < MIGRATIONS.length) {
    transaction(db, () => {
      const v = schemaVersion(db, file);
      if (v >= MIGRATIONS.length) return;
      db.exec(MIGRATIONS[v]);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    });
  }
}

const cache = new WeakMap<Db, Map<string, StatementSync>>();

/** A prepared statement, prepared once per database and reused. */
export function sql(db: Db, text: string): StatementSync {
  let stmts = cache.get(db);
  if (!stmts) cache.set(db, stmts = new Map());
  let stmt = stmts.get(text);
  if (!stmt) stmts.set(text, stmt = db.prepare(text));
  return stmt;
}

const depth = new WeakMap<Db, number>();

/**
 * Runs fn in one transaction (nested calls join the outer one); rolls back on throw. fn is synchronous, so nothing
 * else this process runs can interleave; IMMEDIATE takes the write lock up front, so another process cannot either.
 * A DEFERRED (read) transaction gives its statements one snapshot.
 */
export function transaction<T>(db: Db, fn: () => T, mode: "IMMEDIATE" | "DEFERRED" = "IMMEDIATE"): T {
  const d = depth.get(db) ?? 0;
  if (d > 0) {
    depth.set(db, d + 1);
    try {
      return fn();
    } finally {
      depth.set(db, d);
    }
  }
  db.exec(`BEGIN ${mode}`);
  depth.set(db, 1);
  try {
    const result = fn();
    if (result instanceof Promise) throw new Error("transaction(): fn must be synchronous");
    db.exec("COMMIT");
    return result;
  } catch (err) {
    // SQLite may have rolled back already (a full disk does): the cause is what is thrown, not the rollback's error.
    if (db.isTransaction) db.exec("ROLLBACK");
    throw err;
  } finally {
    depth.set(db, 0);
  }
}

/** True when an error is SQLite's UNIQUE constraint failure. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message);
}
