import * as z from "zod";
import { Id, Timestamp } from "./common.ts";

const amount = z.number().finite().min(0);

export const Channel = z.object({
  current: amount,
  frequency: amount,
  polarity: z.string(),
  riseTime: amount,
  holdTime: amount,
  fallTime: amount,
});
export type Channel = z.infer<typeof Channel>;

export const Phase = z.object({
  duration: amount,
  channels: z.array(Channel),
});
export type Phase = z.infer<typeof Phase>;

export const Treatment = z.object({
  _id: Id,
  name: z.string(),
  category: z.string().nullable(),
  use: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  images: z.array(Id),
  phases: z.array(Phase),
});
export type Treatment = z.infer<typeof Treatment>;

/**
 * A treatment without its phases: what lists, counts and pickers show (GET treatment_summaries). `channels` is the
 * highest channel count over its phases, `phases` and `images` are counts.
 */
export const TreatmentSummary = z.object({
  _id: Id,
  name: z.string(),
  category: z.string().nullable(),
  updatedAt: Timestamp,
  channels: z.number().int().min(0),
  phases: z.number().int().min(0),
  images: z.number().int().min(0),
});
export type TreatmentSummary = z.infer<typeof TreatmentSummary>;

/** The summary of a whole treatment (the engine-independent definition the stores' summaries must match). */
export function summarize(t: Treatment): TreatmentSummary {
  return {
    _id: t._id,
    name: t.name,
    category: t.category,
    updatedAt: t.updatedAt,
    channels: maxChannels(t.phases),
    phases: t.phases.length,
    images: t.images.length,
  };
}

export const ImportResult = z.object({
  imported: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
});
export type ImportResult = z.infer<typeof ImportResult>;

export const TREATMENT_IMPORT_EXTENSION = ".sqlite3";

/** "SQLite format 3\0": the first 16 bytes of every SQLite database (the import file's magic). */
export const SQLITE_MAGIC: readonly number[] = [...new TextEncoder().encode("SQLite format 3\0")];

/** Highest channel count over a treatment's phases. */
export function maxChannels(phases: readonly { channels: readonly unknown[] }[]): number {
  let max = 0;
  for (const p of phases) if (p.channels.length > max) max = p.channels.length;
  return max;
}
