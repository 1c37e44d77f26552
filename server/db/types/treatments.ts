import type { Treatment } from "../../../shared/schemas/treatment.ts";

/** One validated treatment of an import file. */
export interface ImportedTreatment {
  name: string;
  category: string | null;
  use: string | null;
  /** JSON text of its Phase[] (validated: stored as is). */
  phasesJson: string;
  images: { mimeType: string; data: Uint8Array }[];
}

export interface ImportCounts {
  imported: number;
  created: number;
  updated: number;
}

export interface TreatmentImage {
  mimeType: string;
  data: Uint8Array<ArrayBuffer>;
}

export interface TreatmentStore {
  /** The whole list ordered by name (case-insensitively) as UTF-8 JSON bytes. */
  listJson(): Promise<Uint8Array<ArrayBuffer>>;
  get(id: string): Promise<Treatment | null>;
  image(id: string): Promise<TreatmentImage | null>;
  /**
   * Writes validated treatments in one transaction: a name that exists is overwritten in place (same _id, createdAt
   * kept, images replaced), others are inserted.
   */
  import(treatments: readonly ImportedTreatment[]): Promise<ImportCounts>;
}
