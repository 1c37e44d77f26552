/**
 * A treatment as both engines read it: the same columns and joins (plain SQL both dialects speak), mapped to the API's
 * Treatment.
 */
import type { Treatment } from "../../../shared/schemas/treatment.ts";
import { newId } from "../../../shared/ids.ts";

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

/** The columns of a TreatmentRow for a query over `treatments t` joined with TREATMENT_CONTENT_JOIN. */
export const TREATMENT_ROW_COLUMNS =
  "t.id, t.name, t.category, t.use, p.json AS phases, t.image_ids, t.created_at, t.updated_at";
/** Joins a treatment (`t`) with its phases (`p`). */
export const TREATMENT_CONTENT_JOIN = "JOIN treatment_phases p ON p.id = t.phases_id";

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
 * A new id per treatment, handed out in name order (the smallest id to the first name): new rows then go into both the
 * id and the name index in order. Each id is as random as any.
 */
export function idsInNameOrder(treatments: readonly { name: string }[]): string[] {
  const ids = treatments.map(() => newId()).sort();
  const byName = treatments.map((_, i) => i).sort((a, b) => treatments[a].name < treatments[b].name ? -1 : 1);
  const out: string[] = new Array(treatments.length);
  byName.forEach((position, k) => out[position] = ids[k]);
  return out;
}

/** The audit entry of an import: its counts, and the file's name, size and sha256 when it came from one. */
export const importEntry = (
  counts: { imported: number; created: number; updated: number },
  source?: { name: string; size: number; sha256: string },
) => ({
  action: "treatments.import" as const,
  target: source ? { type: "treatments", id: source.sha256, name: source.name } : null,
  details: { ...counts, file: source ? { name: source.name, size: source.size, sha256: source.sha256 } : null },
});
