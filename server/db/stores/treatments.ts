/**
 * The treatment catalogue, written once: the reads, the streamed list (Engine.stream: a connection and a snapshot of
 * its own), the sweep; the import is treatment_import.ts.
 */
import type { TreatmentSummary } from "../../../shared/schemas/treatment.ts";
import {
  TREATMENT_CONTENT_JOIN,
  TREATMENT_ROW_COLUMNS,
  treatmentFromRow,
  type TreatmentRow,
} from "../rules/treatment_rows.ts";
import type { TreatmentStore } from "../types/treatments.ts";
import { all, type Dialect, dialect, type Engine, one, type Q, run, storeOf, write } from "../runner.ts";
import { asBytes, jsonQuote, treatmentNameOrder } from "./dialect_sql.ts";
import { CONTENT, importTreatments } from "./treatment_import.ts";

/** Phase and channel counts of a treatment_phases row. */
interface PhaseCounts {
  phases: number;
  channels: number;
}

const COUNT_CHUNK = 2000;

/** The counts of these treatment_phases rows, into `counted`. */
function* countPhases(ids: number[], counted: Map<number, PhaseCounts>): Q<void> {
  const d = yield* dialect();
  if (d.engine === "sqlite") {
    for (const id of ids) {
      const c = yield* one<PhaseCounts>(
        `SELECT json_array_length(p.json) AS phases,
           (SELECT coalesce(max(json_array_length(e.value, '$.channels')), 0) FROM json_each(p.json) e) AS channels
         FROM treatment_phases p WHERE p.id = ?`,
        id,
      );
      counted.set(id, { phases: Number(c?.phases ?? 0), channels: Number(c?.channels ?? 0) });
    }
    return;
  }
  for (let i = 0; i < ids.length; i += COUNT_CHUNK) {
    const rows = yield* all<PhaseCounts & { id: number }>(
      `SELECT p.id, json_array_length(p.json::json) AS phases,
         coalesce((SELECT max(json_array_length(e -> 'channels')) FROM json_array_elements(p.json::json) e), 0)
           AS channels
       FROM treatment_phases p WHERE p.id = ANY(?::bigint[])`,
      ids.slice(i, i + COUNT_CHUNK).map(String),
    );
    for (const c of rows) counted.set(Number(c.id), { phases: Number(c.phases), channels: Number(c.channels) });
  }
}

/**
 * The summaries in list order. Counting needs the phases' JSON; a treatment_phases row never changes and its id is
 * never reused, so its counts are remembered by id (and forgotten once no treatment links to the row): after the first
 * call only new content is read, whichever connection or process wrote it.
 */
function* listSummaries(counted: Map<number, PhaseCounts>): Q<TreatmentSummary[]> {
  const d = yield* dialect();
  const rows = yield* all<{
    id: string;
    name: string;
    category: string | null;
    updated_at: string;
    phases_id: number;
    images: number;
  }>(
    `SELECT t.id, t.name, t.category, t.updated_at, t.phases_id,
       json_array_length(t.image_ids${d.engine === "sqlite" ? "" : "::json"}) AS images
     FROM treatments t ORDER BY ${treatmentNameOrder(d)}`,
  );
  yield* countPhases([...new Set(rows.map((r) => Number(r.phases_id)).filter((id) => !counted.has(id)))], counted);
  if (counted.size > rows.length) {
    const linked = new Set(rows.map((r) => Number(r.phases_id)));
    for (const id of counted.keys()) if (!linked.has(id)) counted.delete(id);
  }
  return rows.map((r) => {
    const c = counted.get(Number(r.phases_id)) ?? { phases: 0, channels: 0 };
    return {
      _id: r.id,
      name: r.name,
      category: r.category,
      updatedAt: r.updated_at,
      channels: c.channels,
      phases: c.phases,
      images: Number(r.images),
    };
  });
}

/**
 * The Treatment JSON of the row `t` with its phases `p`, built by concatenation so the stored phases and image ids are
 * copied as they are, never parsed (the list of 10,000 treatments stays cheap).
 */
function treatmentJsonSql(d: Dialect): string {
  const q = (column: string) => jsonQuote(d, column);
  return asBytes(
    d,
    `'{"_id":' || ${q("t.id")} || ',"name":' || ${q("t.name")}
    || ',"category":' || ${q("t.category")} || ',"use":' || ${q("t.use")}
    || ',"createdAt":' || ${q("t.created_at")} || ',"updatedAt":' || ${q("t.updated_at")}
    || ',"images":' || t.image_ids || ',"phases":' || p.json || '}'`,
  );
}

/** About this many bytes of the list per chunk: memory per reader stays flat whatever the catalogue. */
const LIST_CHUNK_BYTES = 256 * 1024;

const encoder = new TextEncoder();
const COMMA = encoder.encode(",");

/** The parts as one chunk: strings (PostgreSQL's text) joined and encoded at once, bytes (SQLite's) copied. */
function chunkOf(parts: (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  if (parts.every((p) => typeof p === "string")) return encoder.encode(parts.join("")) as Uint8Array<ArrayBuffer>;
  const bytes = parts.map((p) => typeof p === "string" ? encoder.encode(p) : p);
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of bytes) out.set(b, at), at += b.byteLength;
  return out;
}

/**
 * The list as the bytes of one JSON array, a chunk at a time: the rows read in name order (walking the index, no
 * sort) by the engine's stream, one snapshot however long the client takes.
 */
async function* listJsonChunks(engine: Engine): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  const d = engine.dialect;
  const rows = engine.stream(
    `SELECT ${treatmentJsonSql(d)} FROM treatments t ${TREATMENT_CONTENT_JOIN} ORDER BY ${treatmentNameOrder(d)}`,
  );
  let parts: (string | Uint8Array)[] = ["["], size = 1, first = true;
  for await (const batch of rows) {
    for (const [json] of batch as [string | Uint8Array][]) {
      if (!first) parts.push(typeof json === "string" ? "," : COMMA), size++;
      first = false;
      parts.push(json);
      size += typeof json === "string" ? json.length : json.byteLength;
      if (size >= LIST_CHUNK_BYTES) {
        yield chunkOf(parts);
        parts = [], size = 0;
      }
    }
  }
  parts.push("]");
  yield chunkOf(parts);
}

export function treatmentStore(engine: Engine): TreatmentStore {
  const counted = new Map<number, PhaseCounts>();
  return {
    ...storeOf<Omit<TreatmentStore, "listJsonChunks">>(engine, {
      listSummaries: () => listSummaries(counted),
      import: importTreatments,
      *get(id) {
        const row = yield* one<TreatmentRow>(
          `SELECT ${TREATMENT_ROW_COLUMNS} FROM treatments t ${TREATMENT_CONTENT_JOIN} WHERE t.id = ?`,
          id,
        );
        return row ? treatmentFromRow(row) : null;
      },
      *image(id) {
        const d = yield* dialect();
        const row = yield* one<{ mime_type: string; data: Uint8Array<ArrayBuffer> }>(
          `SELECT i.mime_type, d.data FROM treatment_images i JOIN treatment_image_data d ON d.id = i.data_id
           WHERE i.id = ?`,
          id,
        );
        if (!row) return null;
        // The driver's Buffer as a plain Uint8Array (PostgreSQL); SQLite's is one already.
        return { mimeType: row.mime_type, data: d.engine === "sqlite" ? row.data : new Uint8Array(row.data) };
      },
      /**
       * Content rows nothing links to: left by an import the process did not finish (SQLite); on PostgreSQL an import is
       * one transaction, so there is rarely anything to remove (treatment_import.ts).
       */
      sweep: () =>
        write(function* () {
          let removed = 0;
          for (const { table, linked } of Object.values(CONTENT)) {
            removed += yield* run(`DELETE FROM ${table} AS c WHERE NOT EXISTS (${linked})`);
          }
          return removed;
        }),
    }),
    listJsonChunks: () => listJsonChunks(engine),
  };
}
