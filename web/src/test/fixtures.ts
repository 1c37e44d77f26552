/** Data for the component tests (vitest); not part of the app bundle. */
import type { TreatmentSummary } from "../../../shared/schemas/treatment.ts";

/** A treatment as the lists get it (GET treatment_summaries): one 60-second phase without channels, "Pain". */
export const treatment = (id: string, name: string): TreatmentSummary => ({
  _id: id,
  name,
  category: "Pain",
  updatedAt: "2026-11-22T10:00:00.000Z",
  channels: 0,
  phases: 1,
  images: 0,
});
