import type { Treatment } from "../../../shared/schemas/treatment.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import type { ImportCounts, ImportedTreatment, TreatmentStore } from "../types/treatments.ts";
import { type Db, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

export interface TreatmentRow {
  id: string;
  name: string;
  category: string | null;
  use: string | null;
  phases: string;
  image_ids: string;
  created_at: string;
  updated_at: string;
}

/** A treatments row as the API's Treatment (phases and image ids are stored as validated JSON text). */
export function treatmentFromRow(r: TreatmentRow): Treatment {
  return {
    _id: r.id,
    name: r.name,
    category: r.category,
    use: r.use,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    images: JSON.parse(r.image_ids),
    phases: JSON.parse(r.phases),
  };
}

/**
 * SQL expression: the Treatment JSON of the row aliased `t`, built by concatenation so the stored phases and
 * image ids are copied as they are, never parsed (the list of 10,000 treatments stays cheap).
 */
const TREATMENT_JSON_SQL = `'{"_id":' || json_quote(t.id) || ',"name":' || json_quote(t.name)
  || ',"category":' || json_quote(t.category) || ',"use":' || json_quote(t.use)
  || ',"createdAt":' || json_quote(t.created_at) || ',"updatedAt":' || json_quote(t.updated_at)
  || ',"images":' || t.image_ids || ',"phases":' || t.phases || '}'`;

/** Case-insensitive name order, ties by the exact name (names are unique). */
const NAME_ORDER = "t.name COLLATE NOCASE, t.name";

/** The whole treatment list as UTF-8 JSON bytes, made by SQLite in one query. */
function listTreatmentsJson(db: Db): Uint8Array<ArrayBuffer> {
  const row = sql(
    db,
    `SELECT CAST('[' || coalesce(group_concat(${TREATMENT_JSON_SQL}, ',' ORDER BY ${NAME_ORDER}), '') || ']' AS BLOB)
       AS body FROM treatments t`,
  ).get() as { body: Uint8Array<ArrayBuffer> };
  return row.body;
}

/**
 * Writes validated treatments in one transaction: a name that exists is overwritten in place (same id, createdAt
 * kept, images replaced), others are inserted.
 */
export function applyImport(db: Db, treatments: readonly ImportedTreatment[]): ImportCounts {
  return transaction(db, () => {
    const existing = new Map<string, string>();
    for (const r of sql(db, "SELECT id, name FROM treatments").all() as { id: string; name: string }[]) {
      existing.set(r.name, r.id);
    }
    const at = now();
    const insert = sql(
      db,
      `INSERT INTO treatments (id, name, category, use, phases, image_ids, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const update = sql(
      db,
      "UPDATE treatments SET category = ?, use = ?, phases = ?, image_ids = ?, updated_at = ? WHERE id = ?",
    );
    const dropImages = sql(db, "DELETE FROM treatment_images WHERE treatment_id = ?");
    const insertImage = sql(
      db,
      "INSERT INTO treatment_images (id, treatment_id, position, mime_type, data) VALUES (?, ?, ?, ?, ?)",
    );
    let created = 0, updated = 0;
    for (const t of treatments) {
      const imageIds = t.images.map(() => newId());
      const phases = t.phasesJson;
      const ids = JSON.stringify(imageIds);
      let id = existing.get(t.name);
      if (id) {
        update.run(t.category, t.use, phases, ids, at, id);
        dropImages.run(id);
        updated++;
      } else {
        id = newId();
        insert.run(id, t.name, t.category, t.use, phases, ids, at, at);
        existing.set(t.name, id);
        created++;
      }
      for (let i = 0; i < t.images.length; i++) {
        insertImage.run(imageIds[i], id, i, t.images[i].mimeType, t.images[i].data);
      }
    }
    return { imported: created + updated, created, updated };
  });
}

export function sqliteTreatments(db: Db): TreatmentStore {
  return promised<TreatmentStore>({
    listJson: () => listTreatmentsJson(db),
    get: (id) => {
      const row = sql(db, "SELECT * FROM treatments WHERE id = ?").get(id) as TreatmentRow | undefined;
      return row ? treatmentFromRow(row) : null;
    },
    image: (id) => {
      const row = sql(db, "SELECT mime_type, data FROM treatment_images WHERE id = ?").get(id) as
        | { mime_type: string; data: Uint8Array<ArrayBuffer> }
        | undefined;
      return row ? { mimeType: row.mime_type, data: row.data } : null;
    },
    import: (treatments) => applyImport(db, treatments),
  });
}
