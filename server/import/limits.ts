/** Sanity caps of a treatment import (beyond MAX_IMPORT_BYTES), and what an image may be. */
export const IMPORT_LIMITS = {
  treatments: 100_000,
  /** Totals per file: bound the memory one import may take (a 10,000 × 10 × 4 import is 400,000 channels). */
  phases: 500_000,
  channels: 2_000_000,
  images: 100_000,
  phasesPerTreatment: 1_000,
  channelsPerPhase: 64,
  imagesPerTreatment: 100,
  imageBytes: 16 * 1024 * 1024,
  nameLength: 200,
  categoryLength: 200,
  useLength: 2_000,
  polarityLength: 50,
} as const;

/**
 * Raster types a browser shows safely; SVG is refused (it can carry script). Each with the leading bytes its data
 * must have, so a mislabelled blob is refused too.
 */
export const IMAGE_SIGNATURES: Record<string, (data: Uint8Array) => boolean> = {
  "image/png": (d) => startsWith(d, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/jpeg": (d) => startsWith(d, [0xff, 0xd8, 0xff]),
  "image/gif": (d) => startsWith(d, [0x47, 0x49, 0x46, 0x38]) && (d[4] === 0x37 || d[4] === 0x39) && d[5] === 0x61,
  "image/webp": (d) => startsWith(d, [0x52, 0x49, 0x46, 0x46]) && startsWith(d.subarray(8), [0x57, 0x45, 0x42, 0x50]),
};

function startsWith(data: Uint8Array, prefix: readonly number[]): boolean {
  return data.length >= prefix.length && prefix.every((b, i) => data[i] === b);
}
