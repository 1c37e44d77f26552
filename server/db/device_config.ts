import type { DeviceConfig } from "../../shared/schemas/device_api.ts";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import type { Treatment } from "../../shared/schemas/treatment.ts";
import { deviceTypeName } from "../../shared/schemas/device_type.ts";
import { type Db, sql } from "./mod.ts";
import { treatmentFromRow, type TreatmentRow } from "./treatments.ts";

type FirmwareRef = NonNullable<DeviceConfig["firmware"]>;

const FIRMWARE_COLUMNS = "f.id AS _id, f.name, f.size, f.sha256";

/** The firmware that applies given a device's custom firmware id: that one, else the managed type's default. */
function applicableFirmware(db: Db, customFirmwareId: string | null, product: string): FirmwareRef | null {
  const row = customFirmwareId
    ? sql(db, `SELECT ${FIRMWARE_COLUMNS} FROM firmwares f WHERE f.id = ?`).get(customFirmwareId)
    : sql(
      db,
      `SELECT ${FIRMWARE_COLUMNS} FROM device_types t JOIN firmwares f ON f.id = t.default_firmware WHERE t.name = ?`,
    )
      .get(deviceTypeName(product));
  return row ? { ...(row as Omit<Firmware, "createdAt">) } : null;
}

/**
 * The firmware that applies to a device (CONTRACT §6): its custom firmware, else the managed
 * device type's default, else null. Undefined when the device does not exist.
 */
export function deviceFirmware(db: Db, deviceId: string, product: string): FirmwareRef | null | undefined {
  const device = sql(db, "SELECT firmware_id FROM devices WHERE device_id = ?").get(deviceId) as
    | { firmware_id: string | null }
    | undefined;
  return device ? applicableFirmware(db, device.firmware_id, product) : undefined;
}

/**
 * What a device gets on check-in and GET config, or undefined when the device is unknown.
 * Modules: the product type's defaults plus the device's enabled ones, in module order.
 * Treatments: those of the modules (module order, then order inside the module), then the
 * device's additional ones; each treatment once, at its first place.
 */
export function deviceConfig(db: Db, deviceId: string, product: string): DeviceConfig | undefined {
  const device = sql(db, "SELECT product_type_id, firmware_id FROM devices WHERE device_id = ?").get(deviceId) as
    | { product_type_id: string | null; firmware_id: string | null }
    | undefined;
  if (!device) return undefined;

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
          `SELECT t.* FROM modules m
           JOIN module_treatments mt ON mt.module_id = m.id
           JOIN treatments t ON t.id = mt.treatment_id
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
      `SELECT t.* FROM device_treatments dt JOIN treatments t ON t.id = dt.treatment_id
       WHERE dt.device_id = ? ORDER BY dt.position`,
    ).all(deviceId) as unknown as TreatmentRow[],
  );

  const seen = new Set<string>();
  const treatments: Treatment[] = [];
  for (const row of treatmentRows) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    treatments.push(treatmentFromRow(row));
  }
  return { deviceId, productType, modules, treatments, firmware: applicableFirmware(db, device.firmware_id, product) };
}
