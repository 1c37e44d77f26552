import { type DeviceType, deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { newId } from "../../../shared/ids.ts";
import { InvalidError, NotFoundError } from "../errors.ts";
import { noDefaultFirmware, noDeviceType } from "../rules/device_types.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import type { DeviceTypeStore } from "../types/device_types.ts";
import { firstMissingId, nextRevision, type Sql, type Tx, write } from "./open.ts";
import { appendAudit } from "./audit.ts";

// deno-lint-ignore no-explicit-any
const toDeviceType = (r: any): DeviceType => ({
  _id: r.id,
  name: r.name,
  defaultFirmware: r.default_firmware,
  etag: etagOf(Number(r.revision)),
});

async function getDeviceType(tx: Tx, id: string, lock = false): Promise<DeviceType | null> {
  const rows = await tx.unsafe(
    `SELECT id, name, default_firmware, revision FROM device_types WHERE id = $1${lock ? " FOR UPDATE" : ""}`,
    [id],
  );
  return rows.length ? toDeviceType(rows[0]) : null;
}

export function postgresDeviceTypes(sql: Sql): DeviceTypeStore {
  return {
    list: async () =>
      (await sql`SELECT id, name, default_firmware, revision FROM device_types ORDER BY name`).map(toDeviceType),
    get: (id) => getDeviceType(sql, id),
    ensure: async (product) => {
      await write(sql, async (tx) => {
        const name = deviceTypeName(product);
        const rows = await tx`INSERT INTO device_types (id, name) VALUES (${newId()}, ${name})
          ON CONFLICT (name) DO NOTHING RETURNING id`;
        if (rows.length) {
          await appendAudit(tx, {
            action: "device_type.create",
            target: { type: "device_type", id: rows[0].id, name },
          });
        }
      });
    },
    setDefaultFirmware: (id, firmwareId, ifMatch) =>
      write(sql, async (tx) => {
        const current = await getDeviceType(tx, id, true);
        if (!current) throw new NotFoundError(noDeviceType(id));
        checkIfMatch(ifMatch, current.etag, `Device type ${current.name}`);
        if (firmwareId !== null && await firstMissingId(tx, "firmwares", [firmwareId]) !== null) {
          throw new InvalidError(noDefaultFirmware(firmwareId));
        }
        await tx`UPDATE device_types SET default_firmware = ${firmwareId}, revision = ${await nextRevision(tx)}
          WHERE id = ${id}`;
        const after = (await getDeviceType(tx, id))!;
        await appendAudit(tx, {
          action: "device_type.update",
          target: { type: "device_type", id, name: current.name },
          details: { defaultFirmware: firmwareId, before: { defaultFirmware: current.defaultFirmware } },
        });
        return after;
      }),
  };
}
