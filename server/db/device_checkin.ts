import type { VersionInfo } from "../../shared/schemas/device.ts";
import { type Db, now, sql } from "./mod.ts";

/** Canonical JSON of a VersionInfo (fixed member order), so equal infos compare equal as text. */
export const versionInfoJson = (v: VersionInfo) => JSON.stringify({ app: v.app, os: v.os, channels: v.channels });

/**
 * Records a device check-in in ONE statement: creates the device when unknown, else sets only
 * `last_logged_in` and `version_info` (never a read-modify-write of the whole row, so a check-in
 * cannot undo an operator's concurrent change). `updated_at` moves only when the version info
 * actually changed: a device that merely checks in is not "updated".
 */
export function checkinDevice(db: Db, deviceId: string, versionInfo: VersionInfo, at: string = now()): void {
  sql(
    db,
    `INSERT INTO devices (device_id, created_at, updated_at, last_logged_in, version_info)
     VALUES (?1, ?2, ?2, ?2, ?3)
     ON CONFLICT(device_id) DO UPDATE SET
       last_logged_in = excluded.last_logged_in,
       updated_at = CASE WHEN devices.version_info IS excluded.version_info THEN devices.updated_at
                         ELSE excluded.updated_at END,
       version_info = excluded.version_info`,
  ).run(deviceId, at, versionInfoJson(versionInfo));
}
