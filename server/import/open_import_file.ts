/**
 * Opens an uploaded treatment import file (our private temp copy) safely: header checked, WAL flag cleared,
 * read-only with query_only and trusted_schema off, and its schema vetted before any of its rows is read:
 * no triggers, the needed tables are real tables with the needed columns (docs/REQUIREMENTS.md §7).
 */
import { DatabaseSync } from "node:sqlite";
import { SQLITE_MAGIC } from "../../shared/schemas/treatment.ts";
import { ApiHttpError } from "../errors.ts";

export const importFailed = (msg: string) => new ApiHttpError(400, "import_failed", msg);

/** The columns each table of the import format must have (images is optional). */
export const IMPORT_COLUMNS = {
  treatments: ["id", "name", "category", "use"],
  phases: ["id", "treatment_id", "position", "duration"],
  channels: ["id", "phase_id", "position", "current", "frequency", "polarity", "rise_time", "hold_time", "fall_time"],
  images: ["id", "treatment_id", "position", "mime_type", "data"],
} as const;

export type ImportTable = keyof typeof IMPORT_COLUMNS;

/** For each table read in batches, the name its rowid answers to (a column may be named "rowid"). */
export interface RowidColumns {
  phases: string;
  channels: string;
  images?: string;
}

/**
 * Checks the 100-byte header and clears the WAL flag (bytes 18/19 == 2) in place, so the copy opens without
 * -wal/-shm files. Refuses a file shorter than its header claims (a truncated upload).
 */
function prepareHeader(path: string): void {
  const file = Deno.openSync(path, { read: true, write: true });
  try {
    const size = file.statSync().size;
    const head = new Uint8Array(100);
    let got = 0;
    while (got < head.length) {
      const n = file.readSync(head.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    if (got < 100 || SQLITE_MAGIC.some((b, i) => head[i] !== b)) {
      throw importFailed("The file is not a complete SQLite database (its header is truncated).");
    }
    const view = new DataView(head.buffer);
    const rawPageSize = view.getUint16(16);
    const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
    const pageCount = view.getUint32(28);
    const headerCountValid = view.getUint32(24) === view.getUint32(92);
    if (headerCountValid && pageCount > 0 && pageCount * pageSize > size) {
      throw importFailed(`The SQLite file is truncated: it holds ${size} of ${pageCount * pageSize} bytes.`);
    }
    if (head[18] === 2 || head[19] === 2) {
      file.seekSync(18, Deno.SeekMode.Start);
      file.writeSync(new Uint8Array([1, 1]));
    }
  } finally {
    file.close();
  }
}

/** Opens the import file read-only; the caller closes it. Throws import_failed for anything unusable. */
export function openImportFile(path: string): { db: DatabaseSync; hasImages: boolean; rowids: RowidColumns } {
  prepareHeader(path);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true, enableForeignKeyConstraints: false });
  } catch (err) {
    throw importFailed(`The file could not be opened as an SQLite database (${sqliteReason(err)}).`);
  }
  try {
    db.exec("PRAGMA query_only = 1");
    db.exec("PRAGMA trusted_schema = 0");
    db.exec("PRAGMA cell_size_check = 1");
    const { hasImages, rowids } = vetSchema(db);
    return { db, hasImages, rowids };
  } catch (err) {
    db.close();
    throw asImportError(err);
  }
}

/** Returns whether the optional images table is present, and how to name each table's rowid. */
function vetSchema(db: DatabaseSync): { hasImages: boolean; rowids: RowidColumns } {
  const objects = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema").all() as {
    type: string;
    name: string;
    tbl_name: string;
    sql: string | null;
  }[];
  const trigger = objects.find((o) => o.type === "trigger");
  if (trigger) {
    throw importFailed(
      `${trigger.tbl_name}: the file has a trigger (${trigger.name}); import files must not contain triggers.`,
    );
  }
  let hasImages = false;
  const rowids: Partial<Record<ImportTable, string>> = {};
  for (const table of Object.keys(IMPORT_COLUMNS) as ImportTable[]) {
    const found = objects.find((o) => o.name.toLowerCase() === table && o.type !== "index");
    if (!found) {
      if (table === "images") continue;
      throw importFailed(`${table}: the table is missing.`);
    }
    if (found.type !== "table") throw importFailed(`${table}: is a ${found.type}, not a table.`);
    if (/^\s*create\s+virtual\b/i.test(found.sql ?? "")) throw importFailed(`${table}: is a virtual table.`);
    const columns = new Set(
      (db.prepare("SELECT name FROM pragma_table_info(?)").all(found.name) as { name: string }[])
        .map((c) => c.name.toLowerCase()),
    );
    for (const column of IMPORT_COLUMNS[table]) {
      if (!columns.has(column)) throw importFailed(`${table}: column ${column} is missing.`);
    }
    // Rows are read in batches by rowid, under a name no column takes.
    const rowid = ["rowid", "_rowid_", "oid"].find((name) => !columns.has(name));
    if (!rowid) throw importFailed(`${table}: has columns named rowid, _rowid_ and oid.`);
    try {
      db.prepare(`SELECT ${rowid} FROM ${table} LIMIT 0`);
    } catch {
      throw importFailed(`${table}: is a WITHOUT ROWID table; import files use ordinary tables.`);
    }
    rowids[table] = rowid;
    if (table === "images") hasImages = true;
  }
  return { hasImages, rowids: rowids as Required<typeof rowids> };
}

function sqliteReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s+/g, " ").slice(0, 160);
}

/** SQLite's own errors while reading the file (corrupt pages, integers beyond 2^53) are the file's fault. */
export function asImportError(err: unknown): unknown {
  if (err instanceof ApiHttpError) return err;
  const code = (err as { code?: unknown })?.code;
  if (code === "ERR_OUT_OF_RANGE") {
    return importFailed(`The file holds a number too large to import (${sqliteReason(err)}).`);
  }
  if (typeof code === "string" && code.startsWith("ERR_SQLITE")) {
    return importFailed(`The SQLite file could not be read (${sqliteReason(err)}).`);
  }
  return err;
}
