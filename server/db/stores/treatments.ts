/**
 * The treatment catalogue: reads and the sweep written once. The import (a few MB staged at a time, then one short
 * publish) and the streamed list (a connection of its own) are each engine's (<engine>/treatments.ts): they are built
 * around what each engine's transactions allow.
 */
import type { TreatmentSummary } from "../../../shared/schemas/treatment.ts";
import {
  TREATMENT_CONTENT_JOIN,
  TREATMENT_ROW_COLUMNS,
  treatmentFromRow,
  type TreatmentRow,
} from "../rules/treatment_rows.ts";
import type { TreatmentStore } from "../types/treatments.ts";
import { all, dialect, type Engine, one, type Q, run, storeOf, write } from "../runner.ts";
import { treatmentNameOrder } from "./dialect_sql.ts";

/** Content tables and what links to their rows. */
export const CONTENT = {
  phases: { table: "treatment_phases", linked: "SELECT 1 FROM treatments x WHERE x.phases_id = c.id" },
  images: { table: "treatment_image_data", linked: "SELECT 1 FROM treatment_images x WHERE x.data_id = c.id" },
} as const;

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

/** The treatment store: `own` is the engine's import and streamed list. */
export function treatmentStore(
  engine: Engine,
  own: Pick<TreatmentStore, "import" | "listJsonChunks">,
): TreatmentStore {
  const counted = new Map<number, PhaseCounts>();
  return {
    ...storeOf<Omit<TreatmentStore, "import" | "listJsonChunks">>(engine, {
      listSummaries: () => listSummaries(counted),
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
       * one transaction, so there is rarely anything to remove.
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
    ...own,
  };
}
