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

/**
 * The answer to an upload: the new firmware, and when the same bytes (sha256) are already stored under another name,
 * that firmware's _id (absent when the bytes are new).
 */
export const UploadedFirmware = Firmware.extend({ duplicateOf: Id.optional() });
export type UploadedFirmware = z.infer<typeof UploadedFirmware>;

/** xz container magic bytes (docs/REQUIREMENTS.md §5). */
export const XZ_MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] as const;
export const FIRMWARE_EXTENSION = ".xz";
