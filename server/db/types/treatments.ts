import type { Treatment, TreatmentSummary } from "../../../shared/schemas/treatment.ts";

/** One validated treatment of an import file. */
export interface ImportedTreatment {
  name: string;
  category: string | null;
  use: string | null;
  /** JSON text of its Phase[] (validated: stored as is), or that text's UTF-8 bytes. */
  phasesJson: string | Uint8Array;
  images: { mimeType: string; data: Uint8Array }[];
}

export interface ImportCounts {
  imported: number;
  created: number;
  updated: number;
}

/** The file an import came from, for its audit entry. */
export interface ImportSource {
  name: string;
  size: number;
  sha256: string;
}

export interface TreatmentImage {
  mimeType: string;
  data: Uint8Array<ArrayBuffer>;
}

export interface TreatmentStore {
  /**
   * The whole list ordered by name (case-insensitively): the UTF-8 bytes of one JSON array, in chunks of a few hundred
   * KB read as they are asked for, all from one snapshot. Memory does not grow with the catalogue; stopping early
   * (return()) releases what the reading holds.
   */
  listJsonChunks(): AsyncIterable<Uint8Array<ArrayBuffer>>;
  /**
   * Every treatment without its phases, in the list's order (`summarize` of each treatment of the list): what lists,
   * counts and pickers need, a small fraction of the list's bytes.
   */
  listSummaries(): Promise<TreatmentSummary[]>;
  get(id: string): Promise<Treatment | null>;
  image(id: string): Promise<TreatmentImage | null>;
  /**
   * Writes validated treatments, all visible at once: a name that exists is overwritten in place (same _id, createdAt
   * kept, images replaced), others are inserted. However large the import, no single write holds the database for
   * long: the content is written ahead in short steps and published in one short transaction.
   */
  import(treatments: readonly ImportedTreatment[], source?: ImportSource): Promise<ImportCounts>;
  /** Removes content an interrupted import left behind (written ahead, never published); answers how many rows. */
  sweep(): Promise<number>;
}
