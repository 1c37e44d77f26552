/** Reads and pokes a console database file directly, for tests that check what is on disk (SQLite engine only). */
import { DatabaseSync, type SQLInputValue, type SQLOutputValue } from "node:sqlite";

/** Every row of every table, as sorted JSON lines: equal dumps mean equal data. */
export function dumpDatabase(file: string): Record<string, string[]> {
  const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    const tables = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
      .all() as { name: string }[];
    const dump: Record<string, string[]> = {};
    for (const { name } of tables) {
      dump[name] = db.prepare(`SELECT * FROM "${name}"`).all().map((row) =>
        JSON.stringify(row, (_k, v) => v instanceof Uint8Array ? `blob:${[...v].join(",")}` : v)
      ).sort();
    }
    return dump;
  } finally {
    db.close();
  }
}

/** The file's schema version (PRAGMA user_version). */
export function userVersion(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
}

/** Sets the schema version, as a newer release would have left it. */
export function setUserVersion(file: string, version: number): void {
  const db = new DatabaseSync(file);
  try {
    db.exec(`PRAGMA user_version = ${version}`);
  } finally {
    db.close();
  }
}

/** Runs SQL on a database file: a whole script, or one statement with parameters. */
export function runSql(path: string, sql: string, ...params: SQLInputValue[]): void {
  const db = new DatabaseSync(path);
  try {
    if (params.length) db.prepare(sql).run(...params);
    else db.exec(sql);
  } finally {
    db.close();
  }
}

/** The first column of a query's first row (undefined when there is none). */
export function queryValue(path: string, sql: string, ...params: SQLInputValue[]): SQLOutputValue | undefined {
  const db = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
  try {
    const row = db.prepare(sql).get(...params);
    return row ? Object.values(row)[0] : undefined;
  } finally {
    db.close();
  }
}

/** A read-only connection of the file kept open (after one read) until closed: another connection than a store's. */
export function openReader(path: string): { close(): void } {
  const db = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
  db.prepare("SELECT count(*) FROM sqlite_master").get();
  return db;
}
