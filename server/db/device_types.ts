import { type DeviceType, deviceTypeName } from "../../shared/schemas/device_type.ts";
import { type Db, newId, sql } from "./mod.ts";

/** Creates the managed device type `jeecee_baby_<PRODUCT>` when missing. */
export function ensureDeviceType(db: Db, product: string): void {
  sql(db, "INSERT INTO device_types (id, name) VALUES (?, ?) ON CONFLICT(name) DO NOTHING")
    .run(newId(), deviceTypeName(product));
}

interface DeviceTypeRow {
  id: string;
  name: string;
  default_firmware: string | null;
}

const toDeviceType = (row: DeviceTypeRow): DeviceType => ({
  _id: row.id,
  name: row.name,
  defaultFirmware: row.default_firmware,
});

export function listDeviceTypes(db: Db): DeviceType[] {
  const rows = sql(db, "SELECT id, name, default_firmware FROM device_types ORDER BY name").all();
  return (rows as unknown as DeviceTypeRow[]).map(toDeviceType);
}

export function getDeviceType(db: Db, id: string): DeviceType | null {
  const row = sql(db, "SELECT id, name, default_firmware FROM device_types WHERE id = ?").get(id) as
    | DeviceTypeRow
    | undefined;
  return row ? toDeviceType(row) : null;
}

/** Sets (or clears with null) a device type's default firmware; false when the type is unknown. */
export function setDefaultFirmware(db: Db, id: string, firmwareId: string | null): boolean {
  return sql(db, "UPDATE device_types SET default_firmware = ? WHERE id = ?").run(firmwareId, id).changes > 0;
}
