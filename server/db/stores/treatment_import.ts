/**
 * The treatment import, written once (TreatmentStore.import): the content (phases, image bytes) is staged first, in
 * steps of a few MB, then one publish links it to the treatments under the write lock (names matched, images replaced,
 * rows updated and inserted, a few statements over many rows each), then the content it replaced is removed.
 *
 * What the engines' transactions allow decides how the steps are bound together:
 * - SQLite: each step is a short write transaction of its own with a turn of the event loop between two (requests run
 *   meanwhile; the file has one writer); nothing is visible before the publish; if anything fails, what was staged is
 *   removed, and what a crash leaves is linked to nothing and swept at the next start.
 * - PostgreSQL: the whole import is one transaction that takes the write lock for the publish only: staged rows are
 *   invisible to every other connection until the commit (so a replica's start-up sweep can never remove them) and a
 *   rollback removes them; readers are never blocked, other writers wait for the publish only.
 * Inside a caller's transaction (the demo seed) the steps join it.
 */
import { idsInNameOrder, importEntry } from "../rules/treatment_rows.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import type { ImportCounts, ImportedTreatment, ImportSource } from "../types/treatments.ts";
import { all, type Dialect, dialect, one, type Param, type Q, run, turn, unlocked, write } from "../runner.ts";
import { appendAudit } from "./audit.ts";

/** Content tables and what links to their rows. */
export const CONTENT = {
  phases: { table: "treatment_phases", linked: "SELECT 1 FROM treatments x WHERE x.phases_id = c.id" },
  images: { table: "treatment_image_data", linked: "SELECT 1 FROM treatment_images x WHERE x.data_id = c.id" },
} as const;

/** Bytes per staging step at most; treatments per step at most (SQLite: per transaction; PostgreSQL: per batch). */
const STAGE_BYTES = 2 * 1024 * 1024;
const stageRows = (d: Dialect) => d.engine === "sqlite" ? 1000 : 250;
/** Names, ids or rows per statement of the publish where one statement carries a list (PostgreSQL). */
const PUBLISH_ROWS = 2000;
/** Rows per statement of the publish's writes (at most 8 parameters a row: far below either engine's limit). */
const PUBLISH_VALUES = 500;
/** Content rows per removal step. */
const REMOVE_ROWS = 500;
/** Content rows per INSERT on PostgreSQL (image bytes: a statement stays a few MB). */
const CONTENT_ROWS = 100;

const byteSize = (t: ImportedTreatment) =>
  (typeof t.phasesJson === "string" ? t.phasesJson.length : t.phasesJson.byteLength) +
  t.images.reduce((sum, img) => sum + img.data.byteLength, 0);

const decoder = new TextDecoder();

/** A list in parts of `n`. */
function* parts<T>(list: readonly T[], n: number): Generator<T[]> {
  for (let i = 0; i < list.length; i += n) yield list.slice(i, i + n);
}

/** What the staging wrote: the content rows' ids, per treatment its images. */
interface Staged {
  phases: number[];
  data: number[];
  images: { id: string; treatment: number; position: number; mime: string; dataId: number }[];
  imageIds: string[];
}

/** TreatmentStore.import: the import with its audit entry, in the publish's transaction. */
export function* importTreatments(treatments: readonly ImportedTreatment[], source?: ImportSource): Q<ImportCounts> {
  const d = yield* dialect();
  const body = () => writeTreatments(treatments, source ?? null);
  // PostgreSQL: one transaction, without the write lock until the publish (see above).
  return d.engine === "postgres" ? yield* unlocked(body) : yield* body();
}

/**
 * Writes the treatments (content staged, then published, then what it replaced removed) in steps that join the
 * caller's transaction if there is one. `source`: the import's file for its audit entry; null for a demo seed's
 * treatments, whose transaction records nothing of them.
 */
export function* writeTreatments(
  treatments: readonly ImportedTreatment[],
  source: ImportSource | null | undefined,
): Q<ImportCounts> {
  const d = yield* dialect();
  const staged: Staged = { phases: [], data: [], images: [], imageIds: [] };
  let published: { counts: ImportCounts; replaced: Record<keyof typeof CONTENT, number[]> };
  try {
    for (let from = 0; from < treatments.length;) {
      let to = from, bytes = 0;
      while (to < treatments.length && to - from < stageRows(d) && bytes < STAGE_BYTES) {
        bytes += byteSize(treatments[to++]);
      }
      const start = from;
      yield* write(() => stage(treatments, start, to, staged));
      from = to;
      yield* turn();
    }
    published = yield* write(function* () {
      const out = yield* publish(treatments, staged);
      if (source !== null) yield* appendAudit(importEntry(out.counts, source));
      return out;
    });
  } catch (err) {
    // On PostgreSQL the transaction's rollback removes it all.
    if (d.engine === "sqlite") yield* quietly(removeUnlinked({ phases: staged.phases, images: staged.data }));
    throw err;
  }
  // What is left if this fails is linked to nothing, and removed at the next start (sweep).
  const removal = removeUnlinked(published.replaced);
  yield* d.engine === "sqlite" ? quietly(removal) : removal;
  return published.counts;
}

/** Runs `q`, and forgets its failure. */
function* quietly(q: Q<void>): Q<void> {
  try {
    yield* q;
  } catch { /* see the caller */ }
}

/** Inserts content rows and answers their ids, in order. */
function* insertContent(table: "treatment_phases" | "treatment_image_data", values: Param[]): Q<number[]> {
  if (!values.length) return [];
  const d = yield* dialect();
  // Phases may come as their JSON text's bytes: stored as text.
  const value = table === "treatment_phases" ? "CAST(? AS TEXT)" : "?";
  const column = table === "treatment_phases" ? "json" : "data";
  const ids: number[] = [];
  if (d.rowsPerInsert === 1) {
    // SQLite: one prepared statement per row, no round trip.
    for (const v of values) {
      ids.push(
        Number(
          (yield* one<{ id: number }>(`INSERT INTO ${table} (${column}) VALUES (${value}) RETURNING id`, v))!
            .id,
        ),
      );
    }
    return ids;
  }
  // PostgreSQL: ids drawn from the table's sequence in order, then many rows per statement.
  for (
    const r of yield* all<{ id: number }>(
      `SELECT nextval(pg_get_serial_sequence('${table}', 'id')) AS id FROM generate_series(1, ?)`,
      values.length,
    )
  ) ids.push(Number(r.id));
  for (let k = 0; k < values.length; k += CONTENT_ROWS) {
    const slice = values.slice(k, k + CONTENT_ROWS);
    yield* run(
      `INSERT INTO ${table} (id, ${column}) VALUES ${slice.map(() => `(?, ${value})`).join(", ")}`,
      ...slice.flatMap((v, j) => [ids[k + j], v]),
    );
  }
  return ids;
}

/** Stages treatments[from, to): their content rows, their images' ids. */
function* stage(treatments: readonly ImportedTreatment[], from: number, to: number, staged: Staged): Q<void> {
  const d = yield* dialect();
  const batch = treatments.slice(from, to);
  // SQLite casts the bytes of a phases text in SQL; PostgreSQL is sent the text.
  staged.phases.push(
    ...yield* insertContent(
      "treatment_phases",
      batch.map((t) =>
        typeof t.phasesJson === "string" || d.engine === "sqlite" ? t.phasesJson : decoder.decode(t.phasesJson)
      ),
    ),
  );
  const images = batch.flatMap((t, k) => t.images.map((img, position) => ({ t: from + k, img, position })));
  const dataIds = yield* insertContent("treatment_image_data", images.map((x) => x.img.data));
  staged.data.push(...dataIds);
  const perTreatment = new Map<number, string[]>();
  images.forEach((x, j) => {
    const id = newId();
    staged.images.push({ id, treatment: x.t, position: x.position, mime: x.img.mimeType, dataId: dataIds[j] });
    perTreatment.set(x.t, [...perTreatment.get(x.t) ?? [], id]);
  });
  for (let i = from; i < to; i++) staged.imageIds[i] = JSON.stringify(perTreatment.get(i) ?? []);
}

/**
 * Links the staged content to the treatments, under the write lock: a name that exists is overwritten in place (same
 * id, createdAt kept, images replaced), others are inserted in name order with ids in the same order (the indexes
 * fill in order). Treatment names are unique within one import (the import reader refuses duplicates). Answers the
 * counts and the content rows it replaced.
 */
function* publish(treatments: readonly ImportedTreatment[], staged: Staged) {
  const d = yield* dialect();
  if (d.writeLock) yield* run(d.writeLock);
  const at = now();
  const names = treatments.map((t) => t.name);
  const newIds = idsInNameOrder(treatments);
  const matched = new Map<string, string>();
  const replaced = { phases: [] as number[], images: [] as number[] };
  for (const part of parts(names, PUBLISH_ROWS)) {
    for (
      const r of yield* all<{ id: string; name: string; phases_id: number | null }>(
        `SELECT id, name, phases_id FROM treatments WHERE ${d.inList("name")}${d.forUpdate}`,
        d.list(part),
      )
    ) {
      matched.set(r.name, r.id);
      if (r.phases_id !== null) replaced.phases.push(Number(r.phases_id));
    }
  }
  for (const part of parts([...matched.values()], PUBLISH_ROWS)) {
    for (
      const r of yield* all<{ data_id: number | null }>(
        `DELETE FROM treatment_images WHERE ${d.inList("treatment_id")} RETURNING data_id`,
        d.list(part),
      )
    ) if (r.data_id !== null) replaced.images.push(Number(r.data_id));
  }
  const idOf = treatments.map((t, i) => matched.get(t.name) ?? newIds[i]);
  const updated = treatments.flatMap((t, i) => matched.has(t.name) ? [i] : []);
  const created = treatments.flatMap((t, i) => matched.has(t.name) ? [] : [i])
    .sort((a, b) => names[a] < names[b] ? -1 : 1);
  yield* writeRows(
    `UPDATE treatments SET category = u.category, use = u.use, phases_id = u.phases_id, image_ids = u.image_ids,
       updated_at = ? FROM (SELECT column1 AS id, column2 AS category, column3 AS use, column4 AS phases_id,
       column5 AS image_ids FROM (VALUES <rows>) AS v) AS u WHERE treatments.id = u.id`,
    [at],
    "(?, ?, ?, CAST(? AS BIGINT), ?)",
    updated.map((i) => [idOf[i], treatments[i].category, treatments[i].use, staged.phases[i], staged.imageIds[i]]),
  );
  yield* writeRows(
    "INSERT INTO treatments (id, name, category, use, phases_id, image_ids, created_at, updated_at) VALUES <rows>",
    [],
    "(?, ?, ?, ?, ?, ?, ?, ?)",
    created.map((
      i,
    ) => [idOf[i], names[i], treatments[i].category, treatments[i].use, staged.phases[i], staged.imageIds[i], at, at]),
  );
  // SQLite's old column treatment_images.data is left empty (migration 6).
  const [legacy, empty] = d.engine === "sqlite" ? [", data", ", x''"] : ["", ""];
  yield* writeRows(
    `INSERT INTO treatment_images (id, treatment_id, position, mime_type, data_id${legacy}) VALUES <rows>`,
    [],
    `(?, ?, ?, ?, ?${empty})`,
    staged.images.map((x) => [x.id, idOf[x.treatment], x.position, x.mime, x.dataId]),
  );
  return {
    counts: { imported: updated.length + created.length, created: created.length, updated: updated.length },
    replaced,
  };
}

/**
 * Runs `sql` over the rows, its `<rows>` the rows' VALUES, PUBLISH_VALUES rows per statement on both engines: on SQLite
 * too, a statement over many rows holds the one write transaction (and the event loop) far shorter than one per row.
 * `before`: the parameters ahead of the rows.
 */
function* writeRows(sql: string, before: Param[], row: string, rows: Param[][]): Q<void> {
  for (const part of parts(rows, PUBLISH_VALUES)) {
    yield* run(sql.replace("<rows>", part.map(() => row).join(", ")), ...before, ...part.flat());
  }
}

/** Removes these content rows where nothing links to them, REMOVE_ROWS per write step, a turn between two. */
function* removeUnlinked(ids: Record<keyof typeof CONTENT, number[]>): Q<void> {
  const d = yield* dialect();
  for (const content of ["phases", "images"] as const) {
    const { table, linked } = CONTENT[content];
    for (const part of parts(ids[content], REMOVE_ROWS)) {
      yield* write(() =>
        run(
          `DELETE FROM ${table} AS c WHERE c.id IN (SELECT value FROM ${listOf(d)}) AND NOT EXISTS (${linked})`,
          d.engine === "sqlite" ? JSON.stringify(part) : part.map(String),
        )
      );
      yield* turn();
    }
  }
}

/** The rows (value) of a list of numbers bound to its one `?`. */
const listOf = (d: Dialect) => d.engine === "sqlite" ? "json_each(?)" : "unnest(?::bigint[]) AS value";
