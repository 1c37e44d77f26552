import { type DeviceType, deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { newId } from "../../../shared/ids.ts";
import { InvalidError, NotFoundError } from "../errors.ts";
import { heldByRolloutSql, noDefaultFirmware, noDeviceType } from "../rules/device_types.ts";
import { HOLDING_ROLLOUTS_SQL, holdingRollouts } from "../rules/firmware_in_effect.ts";
import { BUCKET } from "./firmware_keys.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import type { DeviceTypeStore } from "../types/device_types.ts";
import { firstMissingId, nextRevision, read, type Sql, type Tx, write } from "./open.ts";
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
    reach: (id, product) =>
      read(sql, async (tx) => {
        const type = await getDeviceType(tx, id);
        if (!type) return null;
        const n = async (where: string, args: (string | number)[] = []) =>
          Number((await tx.unsafe(`SELECT count(*) AS n FROM devices d WHERE ${where}`, args))[0].n);
        const total = await n("true");
        if (type.name !== deviceTypeName(product)) return { total, devices: 0, custom: 0, rollout: 0 };
        const custom = await n("d.firmware_id IS NOT NULL");
        const args: (string | number)[] = [];
        const held = heldByRolloutSql(holdingRollouts(await tx.unsafe(HOLDING_ROLLOUTS_SQL) as never), (v) => {
          args.push(v);
          return `$${args.length}`;
        }, BUCKET);
        const rollout = held === null ? 0 : await n(`d.firmware_id IS NULL AND ${held}`, args);
        return { total, devices: total - custom - rollout, custom, rollout };
      }),
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
