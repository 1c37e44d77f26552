import { idsInNameOrder, TREATMENT_CONTENT_JOIN } from "../rules/treatment_rows.ts";
import { CONTENT } from "../stores/treatments.ts";
import { DatabaseSync } from "node:sqlite";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import type { ImportCounts, ImportedTreatment, ImportSource, TreatmentStore } from "../types/treatments.ts";
import { importEntry } from "../rules/treatment_rows.ts";
import { appendAudit } from "../stores/audit.ts";
import { drive } from "./runner.ts";
import { type Db, sql, transaction } from "./open.ts";

/**
 * SQL expression: the Treatment JSON of the row aliased `t` with its phases `p`, built by concatenation so the stored
 * phases and image ids are copied as they are, never parsed (the list of 10,000 treatments stays cheap).
 */
const TREATMENT_JSON_SQL = `'{"_id":' || json_quote(t.id) || ',"name":' || json_quote(t.name)
  || ',"category":' || json_quote(t.category) || ',"use":' || json_quote(t.use)
  || ',"createdAt":' || json_quote(t.created_at) || ',"updatedAt":' || json_quote(t.updated_at)
  || ',"images":' || t.image_ids || ',"phases":' || p.json || '}'`;

/** Case-insensitive name order, ties by the exact name (names are unique); the index treatments_list_order. */
const NAME_ORDER = "t.name COLLATE NOCASE, t.name";

/** About this many bytes of the list per chunk: memory per reader stays flat whatever the catalogue. */
const LIST_CHUNK_BYTES = 256 * 1024;

/**
 * The list as the bytes of one JSON array, a chunk at a time. The rows are read in name order (walking the index,
 * no sort) on a connection of the reader's own inside one read transaction, so the list is one snapshot however long
 * the client takes, while the main connection goes on writing; closed when the list ends or the reader stops.
 */
async function* listJsonChunks(file: string): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  const reader = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    reader.exec("BEGIN");
    const rows = reader.prepare(
      `SELECT CAST(${TREATMENT_JSON_SQL} AS BLOB) FROM treatments t ${TREATMENT_CONTENT_JOIN} ORDER BY ${NAME_ORDER}`,
    );
    (rows as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true); // in node:sqlite, not its types
    let parts: Uint8Array[] = [OPEN], size = 1, first = true;
    for (const [json] of rows.iterate() as Iterable<[Uint8Array]>) {
      if (!first) parts.push(COMMA), size++;
      first = false;
      parts.push(json);
      size += json.byteLength;
      if (size >= LIST_CHUNK_BYTES) {
        yield concat(parts, size);
        parts = [], size = 0;
      }
    }
    parts.push(CLOSE);
    yield concat(parts, size + 1);
  } finally {
    reader.close();
  }
}

const OPEN = new TextEncoder().encode("["),
  COMMA = new TextEncoder().encode(","),
  CLOSE = new TextEncoder().encode("]");

function concat(parts: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.byteLength;
  return out;
}

/**
 * An import's working tables, private to the connection (TEMP): the treatments and images it stages (small values and
 * the ids of their content rows), the treatments its names matched and the content rows its publish replaced. Rows
 * carry the import's number.
 */
function ensureImportTables(db: Db): void {
  db.exec(`
    CREATE TEMP TABLE IF NOT EXISTS import_treatments (
      import INTEGER NOT NULL,
      position INTEGER NOT NULL,
      name TEXT NOT NULL,
      category TEXT,
      use TEXT,
      phases_id INTEGER NOT NULL,
      image_ids TEXT NOT NULL,
      new_id TEXT NOT NULL,
      PRIMARY KEY (import, position)
    ) WITHOUT ROWID;
    CREATE TEMP TABLE IF NOT EXISTS import_images (
      import INTEGER NOT NULL,
      treatment INTEGER NOT NULL,
      position INTEGER NOT NULL,
      id TEXT NOT NULL,
      mime_type TEXT NOT NULL,
      data_id INTEGER NOT NULL,
      PRIMARY KEY (import, treatment, position)
    ) WITHOUT ROWID;
    CREATE TEMP TABLE IF NOT EXISTS import_matched (
      import INTEGER NOT NULL,
      position INTEGER NOT NULL,
      id TEXT NOT NULL,
      phases_id INTEGER,
      PRIMARY KEY (import, position)
    ) WITHOUT ROWID;
    CREATE TEMP TABLE IF NOT EXISTS import_replaced (
      import INTEGER NOT NULL,
      content TEXT NOT NULL,
      id INTEGER NOT NULL,
      PRIMARY KEY (import, content, id)
    ) WITHOUT ROWID;
  `);
}

let imports = 0;

/**
 * Stages treatments[from, to) of import `n` in the current transaction: their content rows and their staged rows
 * (`newIds`: the id each gets if its name is new).
 */
function stage(
  db: Db,
  n: number,
  treatments: readonly ImportedTreatment[],
  newIds: readonly string[],
  from: number,
  to: number,
): void {
  const insertPhases = sql(db, "INSERT INTO treatment_phases (json) VALUES (CAST(? AS TEXT))");
  const insertData = sql(db, "INSERT INTO treatment_image_data (data) VALUES (?)");
  const stageTreatment = sql(
    db,
    `INSERT INTO temp.import_treatments (import, position, name, category, use, phases_id, image_ids, new_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const stageImage = sql(
    db,
    `INSERT INTO temp.import_images (import, treatment, position, id, mime_type, data_id)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  for (let i = from; i < to; i++) {
    const t = treatments[i];
    const phasesId = insertPhases.run(t.phasesJson).lastInsertRowid;
    const imageIds = t.images.map(() => newId());
    for (let k = 0; k < t.images.length; k++) {
      const dataId = insertData.run(t.images[k].data).lastInsertRowid;
      stageImage.run(n, i, k, imageIds[k], t.images[k].mimeType, dataId);
    }
    stageTreatment.run(n, i, t.name, t.category, t.use, phasesId, JSON.stringify(imageIds), newIds[i]);
  }
}

/**
 * Links import `n`'s staged content to the treatments, in the current transaction: a name that exists is overwritten in
 * place (same id, createdAt kept, images replaced), others are inserted. A few statements, each a join SQLite runs
 * over small rows (new rows go in in name order, with ids in the same order: the indexes fill in order, about twice as
 * fast as in file order); the content it replaces is noted, for removal after the commit.
 */
function publish(db: Db, n: number): ImportCounts {
  const at = now();
  sql(
    db,
    `INSERT INTO temp.import_matched SELECT ?1, i.position, t.id, t.phases_id
     FROM temp.import_treatments i JOIN treatments t ON t.name = i.name WHERE i.import = ?1`,
  ).run(n);
  sql(
    db,
    "INSERT INTO temp.import_replaced SELECT ?1, 'phases', phases_id FROM temp.import_matched WHERE import = ?1 AND phases_id NOT NULL",
  ).run(n);
  sql(
    db,
    `INSERT INTO temp.import_replaced SELECT ?1, 'images', x.data_id
     FROM temp.import_matched m JOIN treatment_images x ON x.treatment_id = m.id WHERE m.import = ?1 AND x.data_id NOT NULL`,
  ).run(n);
  sql(db, "DELETE FROM treatment_images WHERE treatment_id IN (SELECT id FROM temp.import_matched WHERE import = ?1)")
    .run(n);
  const updated = sql(
    db,
    `UPDATE treatments SET category = i.category, use = i.use, phases_id = i.phases_id, image_ids = i.image_ids,
       updated_at = ?2
     FROM temp.import_matched m JOIN temp.import_treatments i ON i.import = m.import AND i.position = m.position
     WHERE m.import = ?1 AND treatments.id = m.id`,
  ).run(n, at).changes;
  const created = sql(
    db,
    `INSERT INTO treatments (id, name, category, use, phases_id, image_ids, created_at, updated_at)
     SELECT i.new_id, i.name, i.category, i.use, i.phases_id, i.image_ids, ?2, ?2 FROM temp.import_treatments i
     WHERE i.import = ?1 AND NOT EXISTS (SELECT 1 FROM temp.import_matched m WHERE m.import = ?1 AND m.position = i.position)
     ORDER BY i.name`,
  ).run(n, at).changes;
  sql(
    db,
    `INSERT INTO treatment_images (id, treatment_id, position, mime_type, data, data_id)
     SELECT x.id, coalesce(m.id, i.new_id), x.position, x.mime_type, x'', x.data_id FROM temp.import_images x
     JOIN temp.import_treatments i ON i.import = x.import AND i.position = x.treatment
     LEFT JOIN temp.import_matched m ON m.import = x.import AND m.position = x.treatment
     WHERE x.import = ?1`,
  ).run(n);
  return { imported: Number(created) + Number(updated), created: Number(created), updated: Number(updated) };
}

/** Content rows per removal transaction; treatments or bytes per staging transaction at most. */
const REMOVE_ROWS = 500;
const STAGE_ROWS = 1000;
const STAGE_BYTES = 2 * 1024 * 1024;

/** Lets the event loop run (requests, timers) between two short transactions. */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Deletes these content rows where nothing links to them. */
function removeUnlinked(db: Db, content: keyof typeof CONTENT, ids: string): void {
  const { table, linked } = CONTENT[content];
  sql(db, `DELETE FROM ${table} AS c WHERE c.id IN (SELECT value FROM json_each(?)) AND NOT EXISTS (${linked})`)
    .run(ids);
}

/**
 * Removes, a few hundred rows per transaction, the content import `n` no longer needs: what its publish replaced, or
 * (`staged`) what it staged, when it failed. Then forgets the import.
 */
async function cleanUp(db: Db, n: number, staged: boolean): Promise<void> {
  const batches = staged
    ? [
      ["phases", "SELECT phases_id FROM temp.import_treatments WHERE import = ?1 AND phases_id > ?2 ORDER BY 1"],
      ["images", "SELECT data_id FROM temp.import_images WHERE import = ?1 AND data_id > ?2 ORDER BY 1"],
    ] as const
    : [
      ["phases", "SELECT id FROM temp.import_replaced WHERE import = ?1 AND content = 'phases' AND id > ?2 ORDER BY 1"],
      ["images", "SELECT id FROM temp.import_replaced WHERE import = ?1 AND content = 'images' AND id > ?2 ORDER BY 1"],
    ] as const;
  for (const [content, select] of batches) {
    const next = sql(db, `${select} LIMIT ${REMOVE_ROWS}`);
    for (let after = -1;;) {
      const ids = (next.all(n, after) as Record<string, number>[]).map((r) => Object.values(r)[0]);
      if (!ids.length) break;
      transaction(db, () => removeUnlinked(db, content, JSON.stringify(ids)));
      after = ids[ids.length - 1];
      await nextTurn();
    }
  }
  forget(db, n);
}

function forget(db: Db, n: number): void {
  transaction(db, () => {
    for (const table of ["import_treatments", "import_images", "import_matched", "import_replaced"]) {
      sql(db, `DELETE FROM temp.${table} WHERE import = ?`).run(n);
    }
  });
}

const byteSize = (t: ImportedTreatment) =>
  (typeof t.phasesJson === "string" ? t.phasesJson.length : t.phasesJson.byteLength) +
  t.images.reduce((sum, img) => sum + img.data.byteLength, 0);

/**
 * An import without a long write: the content (phases, image bytes) and the small rows are staged first, in
 * transactions of a few MB with other requests running between them; then one short transaction links the staged
 * content to the treatments (the publish: a few joins over small rows); the content it replaced is removed afterwards
 * the same way as it was staged. Nothing is visible before the publish; if anything fails, what was staged is removed.
 * Treatment names must be unique within one import (the import reader refuses duplicates).
 */
async function importStaged(
  db: Db,
  treatments: readonly ImportedTreatment[],
  source?: ImportSource,
): Promise<ImportCounts> {
  ensureImportTables(db);
  const n = ++imports;
  const newIds = idsInNameOrder(treatments);
  let counts: ImportCounts;
  try {
    for (let from = 0; from < treatments.length;) {
      let to = from, bytes = 0;
      while (to < treatments.length && to - from < STAGE_ROWS && bytes < STAGE_BYTES) {
        bytes += byteSize(treatments[to++]);
      }
      transaction(db, () => stage(db, n, treatments, newIds, from, to));
      from = to;
      await nextTurn();
    }
    counts = transaction(db, () => {
      const published = publish(db, n);
      drive(db, appendAudit(importEntry(published, source)));
      return published;
    });
  } catch (err) {
    await cleanUp(db, n, true).catch(() => {});
    throw err;
  }
  // What is left if this fails is linked to nothing, and removed at the next start (sweep).
  await cleanUp(db, n, false).catch(() => {});
  return counts;
}

/** Writes treatments in the caller's transaction, content and links at once: for small sets (the demo data). */
export function writeTreatments(db: Db, treatments: readonly ImportedTreatment[]): ImportCounts {
  ensureImportTables(db);
  const n = ++imports;
  return transaction(db, () => {
    stage(db, n, treatments, idsInNameOrder(treatments), 0, treatments.length);
    const counts = publish(db, n);
    for (const content of ["phases", "images"] as const) {
      const ids = sql(db, "SELECT id FROM temp.import_replaced WHERE import = ? AND content = ?").all(n, content);
      removeUnlinked(db, content, JSON.stringify(ids.map((r) => r.id)));
    }
    forget(db, n);
    return counts;
  });
}

/** The engine's part of the treatment store (stores/treatments.ts): the staged import and the streamed list. */
export function sqliteTreatments(db: Db, file: string): Pick<TreatmentStore, "import" | "listJsonChunks"> {
  return {
    listJsonChunks: () => listJsonChunks(file),
    import: (treatments, source) => importStaged(db, treatments, source),
  };
}
