import { type DeviceType, deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { newId } from "../../../shared/ids.ts";
import { InvalidError, NotFoundError } from "../errors.ts";
import { noDefaultFirmware, noDeviceType } from "../rules/device_types.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import type { DeviceTypeStore } from "../types/device_types.ts";
import { type Db, firstMissingId, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";
import { appendAudit } from "./audit.ts";
import { nextRevision } from "./revisions.ts";

interface DeviceTypeRow {
  id: string;
  name: string;
  default_firmware: string | null;
  revision: number;
}

const toDeviceType = (row: DeviceTypeRow): DeviceType => ({
  _id: row.id,
  name: row.name,
  defaultFirmware: row.default_firmware,
  etag: etagOf(row.revision),
});

function getDeviceType(db: Db, id: string): DeviceType | null {
  const row = sql(db, "SELECT id, name, default_firmware, revision FROM device_types WHERE id = ?").get(id) as
    | DeviceTypeRow
    | undefined;
  return row ? toDeviceType(row) : null;
}

export function sqliteDeviceTypes(db: Db): DeviceTypeStore {
  return promised<DeviceTypeStore>({
    list: () => {
      const rows = sql(db, "SELECT id, name, default_firmware, revision FROM device_types ORDER BY name").all();
      return (rows as unknown as DeviceTypeRow[]).map(toDeviceType);
    },
    get: (id) => getDeviceType(db, id),
    ensure: (product) =>
      transaction(db, () => {
        const id = newId();
        const name = deviceTypeName(product);
        const r = sql(db, "INSERT INTO device_types (id, name) VALUES (?, ?) ON CONFLICT(name) DO NOTHING").run(
          id,
          name,
        );
        if (r.changes > 0) appendAudit(db, { action: "device_type.create", target: { type: "device_type", id, name } });
      }),
    setDefaultFirmware: (id, firmwareId, ifMatch) =>
      transaction(db, () => {
        const current = getDeviceType(db, id);
        if (!current) throw new NotFoundError(noDeviceType(id));
        checkIfMatch(ifMatch, current.etag, `Device type ${current.name}`);
        if (firmwareId !== null && firstMissingId(db, "firmwares", [firmwareId]) !== null) {
          throw new InvalidError(noDefaultFirmware(firmwareId));
        }
        sql(db, "UPDATE device_types SET default_firmware = ?, revision = ? WHERE id = ?")
          .run(firmwareId, nextRevision(db), id);
        appendAudit(db, {
          action: "device_type.update",
          target: { type: "device_type", id, name: current.name },
          details: { defaultFirmware: firmwareId, before: { defaultFirmware: current.defaultFirmware } },
        });
        return getDeviceType(db, id)!;
      }),
  });
}
