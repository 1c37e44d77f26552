import { type DeviceType, deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { newId } from "../../../shared/ids.ts";
import { InvalidError, NotFoundError } from "../errors.ts";
import { heldByRolloutSql, noDefaultFirmware, noDeviceType } from "../rules/device_types.ts";
import { HOLDING_ROLLOUTS_SQL, holdingRollouts } from "../rules/firmware_in_effect.ts";
import { BUCKET } from "./firmware_keys.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import type { DeviceTypeStore } from "../types/device_types.ts";
import { type Db, firstMissingId, snapshot, sql, transaction } from "./open.ts";
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
    reach: (id, product) =>
      snapshot(db, () => {
        const type = getDeviceType(db, id);
        if (!type) return null;
        const n = (where: string, ...args: (string | number)[]) =>
          (sql(db, `SELECT COUNT(*) AS n FROM devices d WHERE ${where}`).get(...args) as { n: number }).n;
        const total = n("1");
        if (type.name !== deviceTypeName(product)) return { total, devices: 0, custom: 0, rollout: 0 };
        const custom = n("d.firmware_id IS NOT NULL");
        const args: (string | number)[] = [];
        const held = heldByRolloutSql(holdingRollouts(sql(db, HOLDING_ROLLOUTS_SQL).all() as never), (v) => {
          args.push(v);
          return "?";
        }, BUCKET);
        const rollout = held === null ? 0 : n(`d.firmware_id IS NULL AND ${held}`, ...args);
        return { total, devices: total - custom - rollout, custom, rollout };
      }),
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
