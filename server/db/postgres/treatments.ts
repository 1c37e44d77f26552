import { idsInNameOrder, TREATMENT_CONTENT_JOIN } from "../rules/treatment_rows.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import type { ImportCounts, ImportedTreatment, ImportSource, TreatmentStore } from "../types/treatments.ts";
import { importEntry } from "../rules/treatment_rows.ts";
import { appendAudit } from "../stores/audit.ts";
import { driveIn } from "./runner.ts";
import { type Sql, type Tx, WRITE_LOCK } from "./open.ts";

/** The Treatment JSON of `t` and `p`, concatenated so the stored JSON texts are copied, never parsed. */
const q = (col: string) => `coalesce(to_json(${col})::text, 'null')`;
const TREATMENT_JSON_SQL = `'{"_id":' || ${q("t.id")} || ',"name":' || ${q("t.name")}
  || ',"category":' || ${q("t.category")} || ',"use":' || ${q("t.use")}
  || ',"createdAt":' || ${q("t.created_at")} || ',"updatedAt":' || ${q("t.updated_at")}
  || ',"images":' || t.image_ids || ',"phases":' || p.json || '}'`;

const NAME_ORDER = "ascii_lower(t.name), t.name";
const LIST_CHUNK_BYTES = 256 * 1024;
const CURSOR_ROWS = 200;

const encoder = new TextEncoder();

/**
 * The list as the bytes of one JSON array, a chunk at a time, read through a cursor on a connection of its own inside
 * one REPEATABLE READ READ ONLY transaction: one snapshot however long the client takes.
 */
async function* listJsonChunks(sql: Sql): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  const conn = await sql.reserve();
  let open = false;
  try {
    await conn`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`;
    open = true;
    // The cursor is read at the client's pace: a slow client is not a stuck transaction (it holds a snapshot, no lock),
    // so the fail-fast limits meant for writes (docs/SCALING.md) do not cut its list short.
    await conn`SET LOCAL idle_in_transaction_session_timeout = 0`;
    await conn`SET LOCAL statement_timeout = 0`;
    let parts: string[] = ["["], size = 1, first = true;
    const cursor = conn.unsafe(
      `SELECT ${TREATMENT_JSON_SQL} AS j FROM treatments t ${TREATMENT_CONTENT_JOIN} ORDER BY ${NAME_ORDER}`,
    ).cursor(CURSOR_ROWS);
    for await (const rows of cursor) {
      for (const { j } of rows as unknown as { j: string }[]) {
        if (!first) parts.push(","), size++;
        first = false;
        parts.push(j);
        size += j.length;
        if (size >= LIST_CHUNK_BYTES) {
          yield encoder.encode(parts.join("")) as Uint8Array<ArrayBuffer>;
          parts = [], size = 0;
        }
      }
    }
    parts.push("]");
    yield encoder.encode(parts.join("")) as Uint8Array<ArrayBuffer>;
  } finally {
    if (open) await conn`COMMIT`.catch(() => {});
    conn.release();
  }
}

const decoder = new TextDecoder();
const phasesText = (t: ImportedTreatment) =>
  typeof t.phasesJson === "string" ? t.phasesJson : decoder.decode(t.phasesJson);

const STAGE_ROWS = 250;
const PUBLISH_ROWS = 2000;

/** A list in parts of PUBLISH_ROWS. */
function* chunks<T>(list: readonly T[]): Generator<T[]> {
  for (let i = 0; i < list.length; i += PUBLISH_ROWS) yield list.slice(i, i + PUBLISH_ROWS);
}
const STAGE_BYTES = 2 * 1024 * 1024;

/** Ids drawn from a content table's sequence, in order. */
async function drawIds(tx: Tx, table: "treatment_phases" | "treatment_image_data", n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = await tx.unsafe(
    `SELECT nextval(pg_get_serial_sequence('${table}', 'id')) AS id FROM generate_series(1, $1)`,
    [
      n,
    ],
  );
  return rows.map((r) => Number(r.id));
}

/**
 * Writes treatments in one transaction: the content (phases, image bytes) first, in batches of a few MB, without the
 * write lock (new rows nothing links to yet: invisible to others until the commit, removed by a rollback); then the
 * write lock for the publish only (a few statements over arrays: match names, replace images, update and insert).
 * Readers are never blocked (MVCC); other writers wait for the publish only.
 */
async function importTreatments(
  sql: Sql,
  treatments: readonly ImportedTreatment[],
  source?: ImportSource,
): Promise<ImportCounts> {
  return await sql.begin(async (tx) => {
    const counts = await importIn(tx, treatments);
    await driveIn(tx, appendAudit(importEntry(counts, source)));
    return counts;
  }) as ImportCounts;
}

export async function importIn(tx: Tx, treatments: readonly ImportedTreatment[]): Promise<ImportCounts> {
  const newIds = idsInNameOrder(treatments);
  const phasesIds: number[] = [];
  const images: { id: string; treatment: number; position: number; mime: string; dataId: number }[] = [];
  const imageIdLists: string[] = [];
  for (let from = 0; from < treatments.length;) {
    let to = from, bytes = 0;
    while (to < treatments.length && to - from < STAGE_ROWS && bytes < STAGE_BYTES) {
      const t = treatments[to++];
      const phases = typeof t.phasesJson === "string" ? t.phasesJson.length : t.phasesJson.byteLength;
      bytes += phases + t.images.reduce((s, i) => s + i.data.byteLength, 0);
    }
    const batch = treatments.slice(from, to);
    const pIds = await drawIds(tx, "treatment_phases", batch.length);
    await tx`INSERT INTO treatment_phases (id, json)
      SELECT * FROM unnest(${pIds}::bigint[], ${batch.map(phasesText)}::text[])`;
    phasesIds.push(...pIds);
    const batchImages = batch.flatMap((t, k) => t.images.map((img, position) => ({ t: from + k, img, position })));
    const dIds = await drawIds(tx, "treatment_image_data", batchImages.length);
    for (let k = 0; k < batchImages.length; k += 100) {
      const slice = batchImages.slice(k, k + 100);
      const values = slice.map((x, j) => [dIds[k + j], x.img.data] as const);
      await tx.unsafe(
        `INSERT INTO treatment_image_data (id, data) VALUES ${
          values.map((_, j) => `($${2 * j + 1}, $${2 * j + 2})`).join(",")
        }`,
        values.flatMap(([id, data]) => [id, data as Uint8Array]) as never[],
      );
    }
    const perTreatment = new Map<number, string[]>();
    batchImages.forEach((x, j) => {
      const id = newId();
      images.push({ id, treatment: x.t, position: x.position, mime: x.img.mimeType, dataId: dIds[j] });
      perTreatment.set(x.t, [...perTreatment.get(x.t) ?? [], id]);
    });
    for (let i = from; i < to; i++) imageIdLists[i] = JSON.stringify(perTreatment.get(i) ?? []);
    from = to;
  }

  // Publish, under the write lock, in statements of PUBLISH_ROWS rows: each statement's parameters are serialized on
  // the event loop, so a large import never holds it for long (requests run between the statements).
  await tx`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`;
  const at = now();
  const names = treatments.map((t) => t.name);
  const matched: { id: string; name: string; phases_id: number }[] = [];
  for (const part of chunks(names)) {
    for (const r of await tx`SELECT id, name, phases_id FROM treatments WHERE name = ANY(${part}::text[]) FOR UPDATE`) {
      matched.push({ id: r.id, name: r.name, phases_id: Number(r.phases_id) });
    }
  }
  const matchedId = new Map(matched.map((r) => [r.name, r.id]));
  const replacedPhases = matched.map((r) => r.phases_id);
  const replacedData: number[] = [];
  for (const part of chunks(matched.map((r) => r.id))) {
    for (
      const r of await tx`DELETE FROM treatment_images WHERE treatment_id = ANY(${part}::text[]) RETURNING data_id`
    ) {
      replacedData.push(Number(r.data_id));
    }
  }
  const idOf = treatments.map((t, i) => matchedId.get(t.name) ?? newIds[i]);
  const upd = treatments.flatMap((t, i) => matchedId.has(t.name) ? [i] : []);
  const ins = treatments.flatMap((t, i) => matchedId.has(t.name) ? [] : [i]).sort((a, b) =>
    names[a] < names[b] ? -1 : 1
  );
  const col = <T>(idx: number[], f: (i: number) => T) => idx.map(f);
  for (const part of chunks(upd)) {
    await tx`UPDATE treatments SET category = u.category, use = u.use, phases_id = u.phases_id,
        image_ids = u.image_ids, updated_at = ${at}
      FROM unnest(${col(part, (i) => idOf[i])}::text[], ${col(part, (i) => treatments[i].category)}::text[],
        ${col(part, (i) => treatments[i].use)}::text[], ${col(part, (i) => phasesIds[i])}::bigint[],
        ${col(part, (i) => imageIdLists[i])}::text[]) AS u(id, category, use, phases_id, image_ids)
      WHERE treatments.id = u.id`;
  }
  for (const part of chunks(ins)) {
    await tx`INSERT INTO treatments (id, name, category, use, phases_id, image_ids, created_at, updated_at)
      SELECT id, name, category, use, phases_id, image_ids, ${at}, ${at}
      FROM unnest(${col(part, (i) => idOf[i])}::text[], ${col(part, (i) => names[i])}::text[],
        ${col(part, (i) => treatments[i].category)}::text[], ${col(part, (i) => treatments[i].use)}::text[],
        ${col(part, (i) => phasesIds[i])}::bigint[], ${col(part, (i) => imageIdLists[i])}::text[])
        AS u(id, name, category, use, phases_id, image_ids)`;
  }
  for (const part of chunks(images)) {
    await tx`INSERT INTO treatment_images (id, treatment_id, position, mime_type, data_id)
      SELECT * FROM unnest(${part.map((x) => x.id)}::text[], ${part.map((x) => idOf[x.treatment])}::text[],
        ${part.map((x) => x.position)}::int[], ${part.map((x) => x.mime)}::text[],
        ${part.map((x) => x.dataId)}::bigint[])`;
  }
  for (const part of chunks(replacedPhases)) {
    await tx`DELETE FROM treatment_phases c WHERE c.id = ANY(${part}::bigint[])
      AND NOT EXISTS (SELECT 1 FROM treatments x WHERE x.phases_id = c.id)`;
  }
  for (const part of chunks(replacedData)) {
    await tx`DELETE FROM treatment_image_data c WHERE c.id = ANY(${part}::bigint[])
      AND NOT EXISTS (SELECT 1 FROM treatment_images x WHERE x.data_id = c.id)`;
  }
  return { imported: upd.length + ins.length, created: ins.length, updated: upd.length };
}

/**
 * The engine's part of the treatment store (stores/treatments.ts): the import and the streamed list (`streams`: the
 * pool the list streams read from, mod.ts).
 */
export function postgresTreatments(sql: Sql, streams: Sql = sql): Pick<TreatmentStore, "import" | "listJsonChunks"> {
  return {
    listJsonChunks: () => listJsonChunks(streams),
    import: (treatments, source) => importTreatments(sql, treatments, source),
  };
}
