/** Data for the component tests (vitest); not part of the app bundle. */
import type { Treatment } from "../../../shared/schemas/treatment.ts";

/** A treatment of one empty 60-second phase, category "Pain". */
export const treatment = (id: string, name: string): Treatment => ({
  _id: id,
  name,
  category: "Pain",
  use: null,
  createdAt: "2026-11-22T10:00:00.000Z",
  updatedAt: "2026-11-22T10:00:00.000Z",
  images: [],
  phases: [{ duration: 60, channels: [] }],
});
