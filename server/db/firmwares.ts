/**
 * Firmware rows and their files: `<firmwares dir>/<id>.xz`, never the client's name.
 * A row exists only for a complete file; a file without a row is swept at start (bootstrap.ts).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { type Firmware, FIRMWARE_EXTENSION, XZ_MAGIC } from "../../shared/schemas/firmware.ts";
import type { Paths } from "../context.ts";
import { conflict, unsupported } from "../errors.ts";
import { type Db, isUniqueViolation, newId, now, sql, transaction } from "./mod.ts";

interface FirmwareRow {
  id: string;
  name: string;
  size: number;
  sha256: string;
  created_at: string;
}

const COLUMNS = "id, name, size, sha256, created_at";

function toFirmware(row: FirmwareRow): Firmware {
  return { _id: row.id, name: row.name, createdAt: row.created_at, size: row.size, sha256: row.sha256 };
}

export const firmwarePath = (paths: Paths, id: string) => join(paths.firmwares, `${id}.xz`);

/** Newest first; rowid breaks ties between uploads within the same millisecond. */
export function listFirmwares(db: Db): Firmware[] {
  const rows = sql(db, `SELECT ${COLUMNS} FROM firmwares ORDER BY created_at DESC, rowid DESC`).all();
  return (rows as unknown as FirmwareRow[]).map(toFirmware);
}

export function getFirmware(db: Db, id: string): Firmware | null {
  const row = sql(db, `SELECT ${COLUMNS} FROM firmwares WHERE id = ?`).get(id) as FirmwareRow | undefined;
  return row ? toFirmware(row) : null;
}

export function firmwareNameTaken(db: Db, name: string): boolean {
  return sql(db, "SELECT 1 FROM firmwares WHERE name = ?").get(name) !== undefined;
}

/** A base name ending in .xz (any case) with something before the extension. */
export const isFirmwareName = (name: string) =>
  name.length > FIRMWARE_EXTENSION.length && name.toLowerCase().endsWith(FIRMWARE_EXTENSION);

export const duplicateName = (name: string) =>
  conflict(`A firmware named ${name} was already uploaded; delete it first or rename the file.`);

/** The rules a new firmware's name must meet: 415 for a name not ending in .xz, 409 for a name already taken. */
export function checkNewFirmwareName(db: Db, name: string): void {
  if (!isFirmwareName(name)) {
    throw unsupported(`${name} is not a firmware file: the name must end in ${FIRMWARE_EXTENSION}.`);
  }
  if (firmwareNameTaken(db, name)) throw duplicateName(name);
}

export interface FirmwareMeta {
  name: string;
  size: number;
  sha256: string;
}

/**
 * Moves a complete temp file (same file system) into place and records it. The row is committed only
 * after the file is in place and flushed; if the insert fails (e.g. a racing upload took the name) the
 * file is removed again and the error (409 for a duplicate name) is thrown. The temp file is gone either way.
 */
export async function storeFirmwareFile(db: Db, paths: Paths, tmpPath: string, meta: FirmwareMeta): Promise<Firmware> {
  const firmware: Firmware = { _id: newId(), name: meta.name, createdAt: now(), size: meta.size, sha256: meta.sha256 };
  const dest = firmwarePath(paths, firmware._id);
  try {
    await syncFile(tmpPath);
    await Deno.rename(tmpPath, dest);
  } catch (err) {
    await Deno.remove(tmpPath).catch(() => {});
    throw err;
  }
  try {
    sql(db, `INSERT INTO firmwares (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`)
      .run(firmware._id, firmware.name, firmware.size, firmware.sha256, firmware.createdAt);
  } catch (err) {
    await Deno.remove(dest).catch(() => {});
    if (isUniqueViolation(err)) throw duplicateName(meta.name);
    throw err;
  }
  return firmware;
}

/**
 * Adds a firmware from bytes already in memory (demo seed, scripts): the same rules and path as an upload
 * (415 for a name not ending in .xz or bytes without the xz magic, 409 for a name already taken).
 */
export async function addFirmware(db: Db, paths: Paths, name: string, bytes: Uint8Array): Promise<Firmware> {
  checkNewFirmwareName(db, name);
  if (XZ_MAGIC.some((b, i) => bytes[i] !== b)) throw unsupported(`${name} is not an xz file.`);
  const tmpPath = join(paths.tmp, `${newId()}.part`);
  await Deno.writeFile(tmpPath, bytes, { createNew: true, mode: 0o600 });
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return storeFirmwareFile(db, paths, tmpPath, { name, size: bytes.byteLength, sha256 });
}

/** Flushes the file's data so a committed row never points at a file that a power loss truncated. */
async function syncFile(path: string): Promise<void> {
  using file = await Deno.open(path, { read: true });
  await file.syncData();
}

export interface FirmwareUse {
  /** Names of the device types that have it as their default. */
  defaultOf: string[];
  /** How many devices have it as their custom firmware. */
  devices: number;
}

export function firmwareUse(db: Db, id: string): FirmwareUse {
  const types = sql(db, "SELECT name FROM device_types WHERE default_firmware = ? ORDER BY name").all(id) as {
    name: string;
  }[];
  const { n } = sql(db, "SELECT COUNT(*) AS n FROM devices WHERE firmware_id = ?").get(id) as { n: number };
  return { defaultOf: types.map((t) => t.name), devices: n };
}

export type DeleteResult = { deleted: Firmware } | { inUse: FirmwareUse; firmware: Firmware } | null;

/** Deletes the row unless the firmware is in use (checked in the same transaction); null when unknown. */
export function deleteFirmwareRow(db: Db, id: string): DeleteResult {
  return transaction(db, () => {
    const firmware = getFirmware(db, id);
    if (!firmware) return null;
    const use = firmwareUse(db, id);
    if (use.defaultOf.length > 0 || use.devices > 0) return { inUse: use, firmware };
    sql(db, "DELETE FROM firmwares WHERE id = ?").run(id);
    return { deleted: firmware };
  });
}
