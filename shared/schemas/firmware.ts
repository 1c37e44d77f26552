import * as z from "zod";
import { Id, Timestamp } from "./common.ts";

export const Firmware = z.object({
  _id: Id,
  name: z.string(),
  createdAt: Timestamp,
  size: z.number().int(),
  sha256: z.string(),
});
export type Firmware = z.infer<typeof Firmware>;

/** xz container magic bytes (CONTRACT §5). */
export const XZ_MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] as const;
export const FIRMWARE_EXTENSION = ".xz";
