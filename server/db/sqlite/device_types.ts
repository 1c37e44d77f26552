import { type DeviceType, deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { newId } from "../../../shared/ids.ts";
import { InvalidError, NotFoundError } from "../errors.ts";
import { noDefaultFirmware, noDeviceType } from "../rules/device_types.ts";
import type { DeviceTypeStore } from "../types/device_types.ts";
import { type Db, firstMissingId, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

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

function getDeviceType(db: Db, id: string): DeviceType | null {
  const row = sql(db, "SELECT id, name, default_firmware FROM device_types WHERE id = ?").get(id) as
    | DeviceTypeRow
    | undefined;
  return row ? toDeviceType(row) : null;
}

export function sqliteDeviceTypes(db: Db): DeviceTypeStore {
  return promised<DeviceTypeStore>({
    list: () => {
      const rows = sql(db, "SELECT id, name, default_firmware FROM device_types ORDER BY name").all();
      return (rows as unknown as DeviceTypeRow[]).map(toDeviceType);
    },
    ensure: (product) => {
      sql(db, "INSERT INTO device_types (id, name) VALUES (?, ?) ON CONFLICT(name) DO NOTHING")
        .run(newId(), deviceTypeName(product));
    },
    setDefaultFirmware: (id, firmwareId) =>
      transaction(db, () => {
        if (!getDeviceType(db, id)) throw new NotFoundError(noDeviceType(id));
        if (firmwareId !== null && firstMissingId(db, "firmwares", [firmwareId]) !== null) {
          throw new InvalidError(noDefaultFirmware(firmwareId));
        }
        sql(db, "UPDATE device_types SET default_firmware = ? WHERE id = ?").run(firmwareId, id);
        return getDeviceType(db, id)!;
      }),
  });
}
