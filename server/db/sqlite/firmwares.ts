import type { Firmware } from "../../../shared/schemas/firmware.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import {
  firmwareEntry,
  firmwareInUse,
  firmwareNameTaken,
  type FirmwareUse,
  isInUse,
  noFirmware,
} from "../rules/firmwares.ts";
import { appendAudit } from "./audit.ts";
import type { FirmwareStore } from "../types/firmwares.ts";
import { type Db, isUniqueViolation, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

interface FirmwareRow {
  id: string;
  name: string;
  size: number;
  sha256: string;
  created_at: string;
}

const COLUMNS = "id, name, size, sha256, created_at";

function toFirmware(row: FirmwareRow): Firmware {
  return { _id: row.id, name: row.name, createdAt: row.created_at, size: row.size, sha256: row.sha256 };
}

function getFirmware(db: Db, id: string): Firmware | null {
  const row = sql(db, `SELECT ${COLUMNS} FROM firmwares WHERE id = ?`).get(id) as FirmwareRow | undefined;
  return row ? toFirmware(row) : null;
}

function firmwareUse(db: Db, id: string): FirmwareUse {
  const types = sql(db, "SELECT name FROM device_types WHERE default_firmware = ? ORDER BY name").all(id) as {
    name: string;
  }[];
  const { n } = sql(db, "SELECT COUNT(*) AS n FROM devices WHERE firmware_id = ?").get(id) as { n: number };
  const rollouts = sql(
    db,
    "SELECT name FROM rollouts WHERE firmware_id = ? AND state IN ('draft', 'running', 'paused') ORDER BY name",
  ).all(id) as { name: string }[];
  return { defaultOf: types.map((t) => t.name), devices: n, rollouts: rollouts.map((r) => r.name) };
}

export function sqliteFirmwares(db: Db): FirmwareStore {
  return promised<FirmwareStore>({
    // Newest first; rowid breaks ties between uploads within the same millisecond.
    list: () => {
      const rows = sql(db, `SELECT ${COLUMNS} FROM firmwares ORDER BY created_at DESC, rowid DESC`).all();
      return (rows as unknown as FirmwareRow[]).map(toFirmware);
    },
    get: (id) => getFirmware(db, id),
    nameTaken: (name) => sql(db, "SELECT 1 FROM firmwares WHERE name = ?").get(name) !== undefined,
    firstWithSha256: (sha256, exceptId) => {
      const row = sql(
        db,
        `SELECT ${COLUMNS} FROM firmwares WHERE sha256 = ? AND id != ? ORDER BY created_at, rowid LIMIT 1`,
      ).get(sha256, exceptId ?? "");
      return row ? toFirmware(row as unknown as FirmwareRow) : null;
    },
    ids: () => (sql(db, "SELECT id FROM firmwares").all() as { id: string }[]).map((r) => r.id),
    insert: (f) =>
      transaction(db, () => {
        try {
          sql(db, `INSERT INTO firmwares (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`)
            .run(f._id, f.name, f.size, f.sha256, f.createdAt);
        } catch (err) {
          if (isUniqueViolation(err)) throw new ConflictError(firmwareNameTaken(f.name));
          throw err;
        }
        appendAudit(db, firmwareEntry("firmware.upload", f));
      }),
    remove: (id) =>
      transaction(db, () => {
        const firmware = getFirmware(db, id);
        if (!firmware) throw new NotFoundError(noFirmware(id));
        const use = firmwareUse(db, id);
        if (isInUse(use)) throw new ConflictError(firmwareInUse(firmware.name, use));
        sql(db, "DELETE FROM firmwares WHERE id = ?").run(id);
        appendAudit(db, firmwareEntry("firmware.delete", firmware));
        return firmware;
      }),
  });
}
