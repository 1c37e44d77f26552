import type { VersionInfo } from "../../../shared/schemas/device.ts";
import { refreshDeviceKeys } from "./firmware_keys.ts";
import type { DeviceConfig } from "../../../shared/schemas/device_api.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { now } from "../clock.ts";
import type { Admission } from "../../../shared/schemas/device.ts";
import { enrollAuditDetails, enrollStep, outcomeOf } from "../rules/admission.ts";
import { deviceTarget, noDevice } from "../rules/devices.ts";
import { firstPlaces, versionInfoJson } from "../rules/device_config.ts";
import type { DeviceApiStore, FirmwareRef } from "../types/device_api.ts";
import { nextRevision, read, type Sql, type Tx, unlocked, writeRetried } from "./open.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { deviceUpdateOf, firmwareInEffectOf, statusMismatch, unknownDevice } from "../rules/rollouts.ts";
import { joinRollouts, offeredByRollout, type OfferedFirmware, recordInRollout } from "./rollouts.ts";
import { appendAudit } from "./audit.ts";
import {
  TREATMENT_CONTENT_JOIN,
  TREATMENT_ROW_COLUMNS,
  treatmentFromRow,
  type TreatmentRow,
} from "../rules/treatment_rows.ts";

/** A check-in in one statement: creates the device, or sets only last_logged_in and version_info (see SQLite's). */
export async function checkinDevice(
  tx: Tx,
  deviceId: string,
  versionInfo: VersionInfo,
  at: string = now(),
): Promise<boolean> {
  const [{ inserted }] = await tx`INSERT INTO devices (device_id, created_at, updated_at, last_logged_in, version_info)
    VALUES (${deviceId}, ${at}, ${at}, ${at}, ${versionInfoJson(versionInfo)})
    ON CONFLICT (device_id) DO UPDATE SET
      last_logged_in = excluded.last_logged_in,
      updated_at = CASE WHEN devices.version_info IS NOT DISTINCT FROM excluded.version_info THEN devices.updated_at
                        ELSE excluded.updated_at END,
      version_info = excluded.version_info
    RETURNING (xmax = 0) AS inserted`;
  if (inserted) await refreshDeviceKeys(tx, "d.device_id = $1", [deviceId]);
  return inserted as boolean;
}

const FIRMWARE_COLUMNS = "f.id AS _id, f.name, f.size, f.sha256";

async function applicableFirmware(tx: Tx, customFirmwareId: string | null, product: string) {
  const rows = customFirmwareId
    ? await tx.unsafe(`SELECT ${FIRMWARE_COLUMNS} FROM firmwares f WHERE f.id = $1`, [customFirmwareId])
    : await tx.unsafe(
      `SELECT ${FIRMWARE_COLUMNS} FROM device_types t JOIN firmwares f ON f.id = t.default_firmware WHERE t.name = $1`,
      [deviceTypeName(product)],
    );
  if (!rows.length) return null;
  const r = rows[0];
  return { _id: r._id, name: r.name, size: Number(r.size), sha256: r.sha256 } as FirmwareRef;
}

interface DeviceKeys {
  device_id: string;
  product_type_id: string | null;
  firmware_id: string | null;
}

/** See SQLite's resolveFirmware: custom, else a rollout's, else the managed type's default. */
async function resolveFirmware(
  tx: Tx,
  device: DeviceKeys,
  product: string,
): Promise<OfferedFirmware | { rolloutId: null; firmware: FirmwareRef | null }> {
  if (device.firmware_id === null) {
    const offered = await offeredByRollout(tx, device.device_id, device.product_type_id);
    if (offered) return offered;
  }
  return { rolloutId: null, firmware: await applicableFirmware(tx, device.firmware_id, product) };
}

async function deviceFirmware(tx: Tx, deviceId: string, product: string): Promise<FirmwareRef | null | undefined> {
  const rows = await tx`SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ${deviceId}`;
  return rows.length ? (await resolveFirmware(tx, rows[0] as unknown as DeviceKeys, product)).firmware : undefined;
}

async function deviceConfig(tx: Tx, deviceId: string, product: string): Promise<DeviceConfig | null> {
  const devices = await tx`SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ${deviceId}`;
  if (!devices.length) return null;
  const device = devices[0] as unknown as DeviceKeys;

  let productType: DeviceConfig["productType"] = null;
  let modules: DeviceConfig["modules"] = [];
  const treatmentRows: TreatmentRow[] = [];
  if (device.product_type_id) {
    const pts = await tx`SELECT id, name, theme FROM product_types WHERE id = ${device.product_type_id}`;
    if (pts.length) {
      const pt = pts[0];
      productType = { _id: pt.id, name: pt.name, theme: JSON.parse(pt.theme) };
      const moduleRows = await tx`SELECT m.id, m.name, m.is_default FROM modules m
        WHERE m.product_type_id = ${pt.id}
          AND (m.is_default OR EXISTS (SELECT 1 FROM device_modules dm WHERE dm.device_id = ${deviceId} AND dm.module_id = m.id))
        ORDER BY m.position, m.id`;
      modules = moduleRows.map((m) => ({ _id: m.id, name: m.name, isDefault: m.is_default }));
      treatmentRows.push(
        ...await tx.unsafe(
          `SELECT ${TREATMENT_ROW_COLUMNS} FROM modules m
           JOIN module_treatments mt ON mt.module_id = m.id
           JOIN treatments t ON t.id = mt.treatment_id ${TREATMENT_CONTENT_JOIN}
           WHERE m.product_type_id = $1
             AND (m.is_default OR EXISTS (SELECT 1 FROM device_modules dm WHERE dm.device_id = $2 AND dm.module_id = m.id))
           ORDER BY m.position, m.id, mt.position`,
          [pt.id, deviceId],
        ) as unknown as TreatmentRow[],
      );
    }
  }
  treatmentRows.push(
    ...await tx.unsafe(
      `SELECT ${TREATMENT_ROW_COLUMNS} FROM device_treatments dt
       JOIN treatments t ON t.id = dt.treatment_id ${TREATMENT_CONTENT_JOIN}
       WHERE dt.device_id = $1 ORDER BY dt.position`,
      [deviceId],
    ) as unknown as TreatmentRow[],
  );
  const treatments = firstPlaces(treatmentRows, (row) => row.id).map(treatmentFromRow);
  return {
    deviceId,
    productType,
    modules,
    treatments,
    firmware: (await resolveFirmware(tx, device, product)).firmware,
  };
}

function enroll(sql: Sql, deviceId: string, versionInfo: VersionInfo, tokenHash: string, auto: boolean) {
  return writeRetried(sql, async (tx) => {
    const rows = await tx`SELECT admission, token_hash FROM devices WHERE device_id = ${deviceId} FOR UPDATE`;
    const row = rows[0] as { admission: Admission; token_hash: string | null } | undefined;
    const step = enrollStep(row ? { admission: row.admission, hasToken: row.token_hash !== null } : null, auto);
    const at = now();
    const info = versionInfoJson(versionInfo);
    switch (step) {
      case "create_pending":
      case "create_issue": {
        const issued = step === "create_issue";
        // A check-in of the shared mode cannot race this one (the modes do not mix on one server); another
        // enrolment of the same id waits on the write lock.
        await tx`INSERT INTO devices (device_id, created_at, updated_at, version_info, admission, token_hash,
            credentials_issued_at)
          VALUES (${deviceId}, ${at}, ${at}, ${info}, ${issued ? "accepted" : "pending"}, ${issued ? tokenHash : null},
            ${issued ? at : null})`;
        await refreshDeviceKeys(tx, "d.device_id = $1", [deviceId]);
        break;
      }
      case "pending":
        await tx`UPDATE devices SET
            updated_at = CASE WHEN version_info IS NOT DISTINCT FROM ${info} THEN updated_at ELSE ${at} END,
            version_info = ${info}
          WHERE device_id = ${deviceId}`;
        break;
      case "issue":
        await tx`UPDATE devices SET admission = 'accepted', token_hash = ${tokenHash}, credentials_issued_at = ${at},
            updated_at = ${at}, version_info = ${info}, revision = ${await nextRevision(tx)}
          WHERE device_id = ${deviceId}`;
        break;
    }
    const details = enrollAuditDetails(step, row?.admission ?? null);
    if (details) await appendAudit(tx, { action: "device.enroll", target: deviceTarget(deviceId), details });
    return outcomeOf(step);
  });
}

export function postgresDeviceApi(sql: Sql): DeviceApiStore {
  return {
    // One transaction without the write lock: one upsert of its own row checks nothing first, so a check-in never
    // waits behind an import's publish (see unlocked()). The configuration is read first and the row written last,
    // just before the commit: the upsert's triggers lock the devices change counter row until the commit, and every
    // check-in needs that lock, so it is held for one statement, not for the reads too. What the check-in writes
    // (lastLoggedIn, versionInfo) is not part of the configuration, so the answer is the one it leaves.
    checkin: async (deviceId, versionInfo, product) => {
      const config = await unlocked(sql, async (tx) => {
        const config = await deviceConfig(tx, deviceId, product) ?? {
          deviceId,
          productType: null,
          modules: [],
          treatments: [],
          firmware:
            (await resolveFirmware(tx, { device_id: deviceId, product_type_id: null, firmware_id: null }, product))
              .firmware,
        };
        if (await checkinDevice(tx, deviceId, versionInfo)) {
          await appendAudit(tx, { action: "device.create", target: deviceTarget(deviceId), details: { versionInfo } });
        }
        return config;
      });
      // Joining the rollouts of its scope (counts only: config resolution needs no row) in a transaction of its own,
      // after the check-in's: the check-in holds the devices change counter, a status report holds a rollout's row
      // then the counter; taking a rollout's row here would order the two the other way round.
      await joinRollouts(sql, deviceId);
      return config;
    },
    // Token mode: the row must be there (its token was just checked); an update of its own row, without the write lock.
    checkinKnown: async (deviceId, versionInfo, product) => {
      const config = await unlocked(sql, async (tx) => {
        const config = await deviceConfig(tx, deviceId, product);
        const at = now();
        const info = versionInfoJson(versionInfo);
        const updated = await tx`UPDATE devices SET last_logged_in = ${at},
            updated_at = CASE WHEN version_info IS NOT DISTINCT FROM ${info} THEN updated_at ELSE ${at} END,
            version_info = ${info}
          WHERE device_id = ${deviceId}`;
        if (!config || updated.count === 0) throw new NotFoundError(noDevice(deviceId));
        return config;
      });
      await joinRollouts(sql, deviceId);
      return config;
    },
    credentials: async (deviceId) => {
      const rows = await sql`SELECT admission, token_hash FROM devices WHERE device_id = ${deviceId}`;
      return rows.length ? { admission: rows[0].admission, tokenHash: rows[0].token_hash } : null;
    },
    enroll: (deviceId, versionInfo, tokenHash, auto) => enroll(sql, deviceId, versionInfo, tokenHash, auto),
    config: (deviceId, product) => read(sql, (tx) => deviceConfig(tx, deviceId, product)),
    firmwareInEffect: (deviceId, product) =>
      read(sql, async (tx) => {
        const rows =
          await tx`SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ${deviceId}`;
        if (!rows.length) return null;
        const device = rows[0] as unknown as DeviceKeys;
        const resolved = await resolveFirmware(tx, device, product);
        const named = resolved.rolloutId === null
          ? []
          : await tx`SELECT name FROM rollouts WHERE id = ${resolved.rolloutId}`;
        return firmwareInEffectOf(deviceId, device.firmware_id, resolved, named[0]?.name ?? null);
      }),
    firmware: (deviceId, product) => read(sql, (tx) => deviceFirmware(tx, deviceId, product)),
    // Without the write lock (see rollouts.ts): the device's row is locked first (one report per device at a time),
    // then the rollout's row and the devices change counter by recordInRollout's last statement.
    status: (deviceId, report, product) =>
      unlocked(sql, async (tx) => {
        const rows = await tx`SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ${deviceId}
          FOR NO KEY UPDATE`;
        if (!rows.length) throw new NotFoundError(unknownDevice(deviceId));
        const { rolloutId, firmware } = await resolveFirmware(tx, rows[0] as unknown as DeviceKeys, product);
        if (firmware?._id !== report.firmwareId) {
          throw new ConflictError(statusMismatch(deviceId, report.firmwareId, firmware?._id ?? null));
        }
        const at = now();
        const update = deviceUpdateOf(report, at);
        // The device's own row last (its trigger locks the devices change counter until the commit).
        if (rolloutId) await recordInRollout(tx, rolloutId, deviceId, update, at, JSON.stringify(update));
        else await tx`UPDATE devices SET update_status = ${JSON.stringify(update)} WHERE device_id = ${deviceId}`;
      }),
  };
}
