import type { Firmware } from "../../../shared/schemas/firmware.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { firmwareEntry, firmwareInUse, firmwareNameTaken, isInUse, noFirmware } from "../rules/firmwares.ts";
import { appendAudit } from "./audit.ts";
import type { FirmwareStore } from "../types/firmwares.ts";
import { isUniqueViolation, type Sql, type Tx, write } from "./open.ts";

const COLUMNS = "id, name, size, sha256, created_at";

// deno-lint-ignore no-explicit-any
const toFirmware = (r: any): Firmware => ({
  _id: r.id,
  name: r.name,
  createdAt: r.created_at,
  size: Number(r.size),
  sha256: r.sha256,
});

async function getFirmware(tx: Tx, id: string, lock = false): Promise<Firmware | null> {
  const rows = await tx.unsafe(`SELECT ${COLUMNS} FROM firmwares WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
  return rows.length ? toFirmware(rows[0]) : null;
}

export function postgresFirmwares(sql: Sql): FirmwareStore {
  return {
    list: async () =>
      (await sql.unsafe(`SELECT ${COLUMNS} FROM firmwares ORDER BY created_at DESC, seq DESC`)).map(toFirmware),
    get: (id) => getFirmware(sql, id),
    nameTaken: async (name) => (await sql`SELECT 1 FROM firmwares WHERE name = ${name}`).length > 0,
    firstWithSha256: async (sha256, exceptId) => {
      const rows = await sql.unsafe(
        `SELECT ${COLUMNS} FROM firmwares WHERE sha256 = $1 AND id != $2 ORDER BY created_at, seq LIMIT 1`,
        [sha256, exceptId ?? ""],
      );
      return rows.length ? toFirmware(rows[0]) : null;
    },
    ids: async () => (await sql`SELECT id FROM firmwares`).map((r) => r.id as string),
    insert: (f) =>
      write(sql, async (tx) => {
        try {
          await tx`INSERT INTO firmwares (id, name, size, sha256, created_at)
            VALUES (${f._id}, ${f.name}, ${f.size}, ${f.sha256}, ${f.createdAt})`;
        } catch (err) {
          if (isUniqueViolation(err)) throw new ConflictError(firmwareNameTaken(f.name));
          throw err;
        }
        await appendAudit(tx, firmwareEntry("firmware.upload", f));
      }),
    remove: (id) =>
      write(sql, async (tx) => {
        const firmware = await getFirmware(tx, id, true);
        if (!firmware) throw new NotFoundError(noFirmware(id));
        const types = await tx`SELECT name FROM device_types WHERE default_firmware = ${id} ORDER BY name`;
        const [{ n }] = await tx`SELECT count(*) AS n FROM devices WHERE firmware_id = ${id}`;
        const rollouts = await tx`SELECT name FROM rollouts WHERE firmware_id = ${id}
          AND state IN ('draft', 'running', 'paused') ORDER BY name`;
        const use = {
          defaultOf: types.map((t) => t.name as string),
          devices: Number(n),
          rollouts: rollouts.map((r) => r.name as string),
        };
        if (isInUse(use)) throw new ConflictError(firmwareInUse(firmware.name, use));
        await tx`DELETE FROM firmwares WHERE id = ${id}`;
        await appendAudit(tx, firmwareEntry("firmware.delete", firmware));
        return firmware;
      }),
  };
}
