/**
 * A firmware is its file (in the firmware files: server/files/) plus its row. A row exists only for a complete file; a
 * file without a row is swept at start (bootstrap.ts).
 */
import {
  type Firmware,
  FIRMWARE_EXTENSIONS_TEXT,
  FIRMWARE_FORMATS,
  type FirmwareFormat,
  firmwareFormat,
} from "../shared/schemas/firmware.ts";
import { firmwareNameTaken } from "./db/rules/firmwares.ts";
import type { FirmwareStore } from "./db/stores.ts";
import { now } from "./db/clock.ts";
import { type ApiHttpError, conflict, invalidFirmware, unsupported } from "./errors.ts";
import { startXzCheck } from "./files/xz_check.ts";
import { startSwuCheck } from "./files/cpio_check.ts";
import type { StreamCheck } from "./files/stream_check.ts";
import type { FirmwareFiles, FirmwarePut } from "./files/firmware_files.ts";

type FirmwareRows = Pick<FirmwareStore, "nameTaken" | "insert">;

/** A base name ending in .xz or .swu (any case) with something before the extension. */
export const isFirmwareName = (name: string) => firmwareFormat(name) !== null;

/** 415 for a name that is not a firmware file's (not ending in .xz or .swu); else the format it names. */
export function checkFirmwareName(name: string): FirmwareFormat {
  const format = firmwareFormat(name);
  if (format === null) {
    throw unsupported(`${name} is not a firmware file: the name must end in ${FIRMWARE_EXTENSIONS_TEXT}.`);
  }
  return format;
}

/** How each format's content is checked while it streams (the magic first, then the whole file). */
export const FIRMWARE_CHECKS: Record<
  FirmwareFormat,
  {
    magicError: (name: string) => ApiHttpError;
    start: (how: { fedByWriter: boolean }) => StreamCheck;
    error: (name: string, p: string) => ApiHttpError;
  }
> = {
  xz: {
    magicError: (name) => unsupported(`${name} is not an xz file: it does not start with the xz signature.`),
    start: startXzCheck,
    error: (name, problem) => invalidFirmware(`${name} is not a valid xz file: ${problem}.`),
  },
  swu: {
    magicError: (name) =>
      invalidFirmware(
        `${name} is not a valid SWUpdate image: it is not a cpio archive (it does not start with 070701 or 070702).`,
      ),
    start: startSwuCheck,
    error: (name, problem) => invalidFirmware(`${name} is not a valid SWUpdate image: ${problem}.`),
  },
};

/** The upload's content rules for a firmware of this name (lib/upload.ts). */
export function firmwareContentRules(name: string) {
  const format = checkFirmwareName(name);
  const check = FIRMWARE_CHECKS[format];
  return {
    magic: FIRMWARE_FORMATS[format].magic,
    magicError: check.magicError,
    verify: { start: check.start, error: check.error },
  };
}

export const duplicateName = (name: string) => conflict(firmwareNameTaken(name));

export interface FirmwareMeta {
  name: string;
  size: number;
  sha256: string;
  /** The verified signature (docs/REQUIREMENTS.md §20); absent: unsigned. */
  signature?: Firmware["signature"];
  /** Absent: needs no approval. */
  approval?: Firmware["approval"];
  /** The uploading operator (an API token's owner); absent: the system. */
  uploader?: { id: string; email: string };
  /** Computed in the same streaming pass (hawkBit DDI lists them); absent: computed once when first needed. */
  sha1?: string;
  md5?: string;
}

/**
 * Makes a finished put the file of a new firmware and records it. The row is committed only after the file is in place
 * (flushed by finish()); if the insert fails (e.g. a racing upload took the name: the store's ConflictError) the file is
 * removed again and the error is thrown. Nothing of the put stays on failure.
 */
export async function storeFirmware(
  rows: FirmwareRows,
  files: FirmwareFiles,
  put: FirmwarePut,
  meta: FirmwareMeta,
): Promise<Firmware> {
  const firmware: Firmware = {
    _id: put.id,
    name: meta.name,
    createdAt: now(),
    size: meta.size,
    sha256: meta.sha256,
    signature: meta.signature ?? null,
    approval: meta.approval ?? { state: "not_required", by: null, at: null, meaning: null },
    uploadedBy: meta.uploader?.email ?? null,
  };
  try {
    await put.commit();
  } catch (err) {
    await put.abort();
    throw err;
  }
  try {
    await rows.insert(
      firmware,
      meta.uploader?.id ?? null,
      meta.sha1 && meta.md5 ? { sha1: meta.sha1, md5: meta.md5 } : undefined,
    );
  } catch (err) {
    await files.remove(firmware._id).catch(() => {});
    throw err;
  }
  return firmware;
}

/**
 * Adds a firmware from bytes already in memory (demo seed, scripts): the same rules and path as an upload
 * (415 for a name not ending in .xz/.swu or bytes without the xz magic, 422 for bytes that are not a valid xz file or
 * SWUpdate image, 409
 * for a name already taken).
 */
export async function addFirmware(
  rows: FirmwareRows,
  files: FirmwareFiles,
  name: string,
  bytes: Uint8Array,
): Promise<Firmware> {
  const rules = firmwareContentRules(name);
  if (await rows.nameTaken(name)) throw duplicateName(name);
  if (rules.magic.some((b, i) => bytes[i] !== b)) throw rules.magicError(name);
  const check = rules.verify.start({ fedByWriter: false });
  await check.write(bytes);
  const problem = await check.finish();
  if (problem !== null) throw rules.verify.error(name, problem);
  const put = files.put();
  try {
    await put.write(bytes);
    return await storeFirmware(rows, files, put, { name, ...await put.finish() });
  } finally {
    await put.abort();
  }
}
