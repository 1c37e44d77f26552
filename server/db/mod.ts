import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { MIGRATIONS } from "./schema.ts";

export type Db = DatabaseSync;
export type { SQLInputValue };

/** Opens (creating if needed) the console database: WAL, foreign keys, migrations applied. */
export function openDatabase(file: string): Db {
  const db = new DatabaseSync(file, { enableForeignKeyConstraints: true, timeout: 5000 });
  try {
    schemaVersion(db, file); // before anything writes to the file (even the WAL switch)
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA busy_timeout = 5000");
    migrate(db, file);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** A database written by a newer release: never touched, whoever opens it (server, `deno task user`, ...). */
export class NewerSchemaError extends Error {}

function schemaVersion(db: Db, file: string): number {
  const { user_version } = db.prepare("PRAGMA user_version").get() as { user_version: number };
  if (user_version > MIGRATIONS.length) {
    throw new NewerSchemaError(
      `The database in ${file} has schema version ${user_version}, newer than this release knows (${MIGRATIONS.length}): run the newer release, or restore a backup taken before the upgrade.`,
    );
  }
  return user_version;
}

export function migrate(db: Db, file = "the database"): void {
  for (let v = schemaVersion(db, file); v < MIGRATIONS.length; v++) {
    transaction(db, () => {
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

/** Runs fn in one write transaction (nested calls join the outer one); rolls back on throw. */
export function transaction<T>(db: Db, fn: () => T): T {
  const d = depth.get(db) ?? 0;
  if (d > 0) {
    depth.set(db, d + 1);
    try {
      return fn();
    } finally {
      depth.set(db, d);
    }
  }
  db.exec("BEGIN IMMEDIATE");
  depth.set(db, 1);
  try {
    const result = fn();
    if (result instanceof Promise) throw new Error("transaction(): fn must be synchronous");
    db.exec("COMMIT");
    return result;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  } finally {
    depth.set(db, 0);
  }
}

export const now = () => new Date().toISOString();
export const newId = () => crypto.randomUUID().replaceAll("-", "");

/** True when an error is SQLite's UNIQUE constraint failure. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message);
}
