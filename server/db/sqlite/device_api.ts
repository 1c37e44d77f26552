import { refreshDeviceKeys } from "./firmware_keys.ts";
import type { VersionInfo } from "../../../shared/schemas/device.ts";
import type { DeviceConfig } from "../../../shared/schemas/device_api.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { now } from "../clock.ts";
import type { Admission } from "../../../shared/schemas/device.ts";
import { enrollAuditDetails, enrollStep, outcomeOf } from "../rules/admission.ts";
import { deviceTarget, noDevice } from "../rules/devices.ts";
import { nextRevision } from "./revisions.ts";
import { firstPlaces, versionInfoJson } from "../rules/device_config.ts";
import type { DeviceApiStore, FirmwareRef } from "../types/device_api.ts";
import { type Db, snapshot, sql, transaction } from "./open.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { deviceUpdateOf, firmwareInEffectOf, statusMismatch, unknownDevice } from "../rules/rollouts.ts";
import { joinRollouts, offeredByRollout, type OfferedFirmware, recordInRollout } from "./rollouts.ts";
import { promised } from "./promised.ts";
import { appendAudit } from "./audit.ts";
import {
  TREATMENT_CONTENT_JOIN,
  TREATMENT_ROW_COLUMNS,
  treatmentFromRow,
  type TreatmentRow,
} from "../rules/treatment_rows.ts";

/**
 * Records a device check-in in ONE statement: creates the device when unknown, else sets only
 * `last_logged_in` and `version_info` (never a read-modify-write of the whole row, so a check-in
 * cannot undo an operator's concurrent change). `updated_at` moves only when the version info
 * actually changed: a device that merely checks in is not "updated".
 */
export function checkinDevice(db: Db, deviceId: string, versionInfo: VersionInfo, at: string = now()): boolean {
  const known = sql(db, "SELECT 1 FROM devices WHERE device_id = ?").get(deviceId) !== undefined;
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
  if (!known) refreshDeviceKeys(db, "d.device_id = ?", [deviceId]);
  return !known;
}

const FIRMWARE_COLUMNS = "f.id AS _id, f.name, f.size, f.sha256";

interface DeviceKeys {
  device_id: string;
  product_type_id: string | null;
  firmware_id: string | null;
}

/**
 * The firmware that applies to a device (CONTRACT §13): its custom firmware, else the one a rollout offers it, else
 * the managed type's default; with the rollout that offers it, if one does.
 */
function resolveFirmware(
  db: Db,
  device: DeviceKeys,
  product: string,
): OfferedFirmware | { rolloutId: null; firmware: FirmwareRef | null } {
  if (device.firmware_id === null) {
    const offered = offeredByRollout(db, device.device_id, device.product_type_id);
    if (offered) return offered;
  }
  return { rolloutId: null, firmware: applicableFirmware(db, device.firmware_id, product) };
}

/** The firmware that applies given a device's custom firmware id: that one, else the managed type's default. */
function applicableFirmware(db: Db, customFirmwareId: string | null, product: string): FirmwareRef | null {
  const row = customFirmwareId
    ? sql(db, `SELECT ${FIRMWARE_COLUMNS} FROM firmwares f WHERE f.id = ?`).get(customFirmwareId)
    : sql(
      db,
      `SELECT ${FIRMWARE_COLUMNS} FROM device_types t JOIN firmwares f ON f.id = t.default_firmware WHERE t.name = ?`,
    )
      .get(deviceTypeName(product));
  return row ? { ...(row as FirmwareRef) } : null;
}

/** The firmware that applies to a device, or undefined when the device does not exist. */
function deviceFirmware(db: Db, deviceId: string, product: string): FirmwareRef | null | undefined {
  const device = sql(db, "SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ?").get(
    deviceId,
  ) as DeviceKeys | undefined;
  return device ? resolveFirmware(db, device, product).firmware : undefined;
}

/**
 * What a device gets on check-in and GET config, or null when the device is unknown.
 * Modules: the product type's defaults plus the device's enabled ones, in module order.
 * Treatments: see firstPlaces().
 */
function deviceConfig(db: Db, deviceId: string, product: string): DeviceConfig | null {
  const device = sql(db, "SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ?").get(
    deviceId,
  ) as DeviceKeys | undefined;
  if (!device) return null;

  let productType: DeviceConfig["productType"] = null;
  let modules: DeviceConfig["modules"] = [];
  const treatmentRows: TreatmentRow[] = [];
  if (device.product_type_id) {
    const pt = sql(db, "SELECT id, name, theme FROM product_types WHERE id = ?").get(device.product_type_id) as
      | { id: string; name: string; theme: string }
      | undefined;
    if (pt) {
      productType = { _id: pt.id, name: pt.name, theme: JSON.parse(pt.theme) };
      const moduleRows = sql(
        db,
        `SELECT m.id, m.name, m.is_default FROM modules m
         WHERE m.product_type_id = ?1
           AND (m.is_default = 1 OR EXISTS (SELECT 1 FROM device_modules dm WHERE dm.device_id = ?2 AND dm.module_id = m.id))
         ORDER BY m.position, m.id`,
      ).all(pt.id, deviceId) as { id: string; name: string; is_default: number }[];
      modules = moduleRows.map((m) => ({ _id: m.id, name: m.name, isDefault: m.is_default === 1 }));
      treatmentRows.push(
        ...sql(
          db,
          `SELECT ${TREATMENT_ROW_COLUMNS} FROM modules m
           JOIN module_treatments mt ON mt.module_id = m.id
           JOIN treatments t ON t.id = mt.treatment_id ${TREATMENT_CONTENT_JOIN}
           WHERE m.product_type_id = ?1
             AND (m.is_default = 1 OR EXISTS (SELECT 1 FROM device_modules dm WHERE dm.device_id = ?2 AND dm.module_id = m.id))
           ORDER BY m.position, m.id, mt.position`,
        ).all(pt.id, deviceId) as unknown as TreatmentRow[],
      );
    }
  }
  treatmentRows.push(
    ...sql(
      db,
      `SELECT ${TREATMENT_ROW_COLUMNS} FROM device_treatments dt
       JOIN treatments t ON t.id = dt.treatment_id ${TREATMENT_CONTENT_JOIN}
       WHERE dt.device_id = ? ORDER BY dt.position`,
    ).all(deviceId) as unknown as TreatmentRow[],
  );
  const treatments = firstPlaces(treatmentRows, (row) => row.id).map(treatmentFromRow);
  return { deviceId, productType, modules, treatments, firmware: resolveFirmware(db, device, product).firmware };
}

/** A check-in of a device that must exist (DEVICE_AUTH=token): sets only last_logged_in and version_info. */
function checkinKnownDevice(db: Db, deviceId: string, versionInfo: VersionInfo, at: string = now()): boolean {
  const { changes } = sql(
    db,
    `UPDATE devices SET last_logged_in = ?1,
       updated_at = CASE WHEN version_info IS ?3 THEN updated_at ELSE ?1 END,
       version_info = ?3
     WHERE device_id = ?2`,
  ).run(at, deviceId, versionInfoJson(versionInfo));
  return Number(changes) > 0;
}

function enroll(db: Db, deviceId: string, versionInfo: VersionInfo, tokenHash: string, auto: boolean) {
  return transaction(db, () => {
    const row = sql(db, "SELECT admission, token_hash FROM devices WHERE device_id = ?").get(deviceId) as
      | { admission: Admission; token_hash: string | null }
      | undefined;
    const step = enrollStep(row ? { admission: row.admission, hasToken: row.token_hash !== null } : null, auto);
    const at = now();
    const info = versionInfoJson(versionInfo);
    switch (step) {
      case "create_pending":
      case "create_issue": {
        const issued = step === "create_issue";
        sql(
          db,
          `INSERT INTO devices (device_id, created_at, updated_at, version_info, admission, token_hash,
             credentials_issued_at) VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6)`,
        ).run(deviceId, at, info, issued ? "accepted" : "pending", issued ? tokenHash : null, issued ? at : null);
        refreshDeviceKeys(db, "d.device_id = ?", [deviceId]);
        break;
      }
      case "pending":
        sql(
          db,
          `UPDATE devices SET updated_at = CASE WHEN version_info IS ?1 THEN updated_at ELSE ?2 END, version_info = ?1
           WHERE device_id = ?3`,
        ).run(info, at, deviceId);
        break;
      case "issue":
        sql(
          db,
          `UPDATE devices SET admission = 'accepted', token_hash = ?1, credentials_issued_at = ?2, updated_at = ?2,
             version_info = ?3, revision = ?4 WHERE device_id = ?5`,
        ).run(tokenHash, at, info, nextRevision(db), deviceId);
        break;
    }
    const details = enrollAuditDetails(step, row?.admission ?? null);
    if (details) appendAudit(db, { action: "device.enroll", target: deviceTarget(deviceId), details });
    return outcomeOf(step);
  });
}

export function sqliteDeviceApi(db: Db): DeviceApiStore {
  return promised<DeviceApiStore>({
    checkin: (deviceId, versionInfo, product) =>
      transaction(db, () => {
        const created = checkinDevice(db, deviceId, versionInfo);
        if (created) {
          appendAudit(db, { action: "device.create", target: deviceTarget(deviceId), details: { versionInfo } });
        }
        joinRollouts(db, deviceId);
        return deviceConfig(db, deviceId, product)!;
      }),
    checkinKnown: (deviceId, versionInfo, product) =>
      transaction(db, () => {
        if (!checkinKnownDevice(db, deviceId, versionInfo)) throw new NotFoundError(noDevice(deviceId));
        joinRollouts(db, deviceId);
        return deviceConfig(db, deviceId, product)!;
      }),
    credentials: (deviceId) => {
      const row = sql(db, "SELECT admission, token_hash FROM devices WHERE device_id = ?").get(deviceId) as
        | { admission: Admission; token_hash: string | null }
        | undefined;
      return row ? { admission: row.admission, tokenHash: row.token_hash } : null;
    },
    enroll: (deviceId, versionInfo, tokenHash, auto) => enroll(db, deviceId, versionInfo, tokenHash, auto),
    config: (deviceId, product) => snapshot(db, () => deviceConfig(db, deviceId, product)),
    firmware: (deviceId, product) => snapshot(db, () => deviceFirmware(db, deviceId, product)),
    firmwareInEffect: (deviceId, product) =>
      snapshot(db, () => {
        const device = sql(db, "SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ?").get(
          deviceId,
        ) as DeviceKeys | undefined;
        if (!device) return null;
        const resolved = resolveFirmware(db, device, product);
        const rollout = resolved.rolloutId === null
          ? undefined
          : sql(db, "SELECT name FROM rollouts WHERE id = ?").get(resolved.rolloutId) as { name: string } | undefined;
        return firmwareInEffectOf(deviceId, device.firmware_id, resolved, rollout?.name ?? null);
      }),
    status: (deviceId, report, product) =>
      transaction(db, () => {
        const device = sql(db, "SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ?").get(
          deviceId,
        ) as DeviceKeys | undefined;
        if (!device) throw new NotFoundError(unknownDevice(deviceId));
        const { rolloutId, firmware } = resolveFirmware(db, device, product);
        if (firmware?._id !== report.firmwareId) {
          throw new ConflictError(statusMismatch(deviceId, report.firmwareId, firmware?._id ?? null));
        }
        const at = now();
        const update = deviceUpdateOf(report, at);
        sql(db, "UPDATE devices SET update_status = ? WHERE device_id = ?").run(JSON.stringify(update), deviceId);
        if (rolloutId) recordInRollout(db, rolloutId, deviceId, update, at);
      }),
  });
}
