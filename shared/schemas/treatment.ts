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
