import type { Firmware } from "../../../shared/schemas/firmware.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { firmwareEntry, firmwareInUse, firmwareNameTaken, isInUse, noFirmware } from "../rules/firmwares.ts";
import type { FirmwareStore } from "../types/firmwares.ts";
import { all, dialect, type Engine, one, type Q, run, storeOf, write } from "../runner.ts";
import { appendAudit } from "./audit.ts";

interface FirmwareRow {
  id: string;
  name: string;
  size: number;
  sha256: string;
  created_at: string;
}

const COLUMNS = "id, name, size, sha256, created_at";

const toFirmware = (r: FirmwareRow): Firmware => ({
  _id: r.id,
  name: r.name,
  createdAt: r.created_at,
  size: Number(r.size),
  sha256: r.sha256,
});

function* getFirmware(id: string, lock = false): Q<Firmware | null> {
  const d = yield* dialect();
  const row = yield* one<FirmwareRow>(`SELECT ${COLUMNS} FROM firmwares WHERE id = ?${lock ? d.forUpdate : ""}`, id);
  return row ? toFirmware(row) : null;
}

export function firmwareStore(engine: Engine): FirmwareStore {
  return storeOf<FirmwareStore>(engine, {
    // Newest first; the insert order breaks ties between uploads within the same millisecond.
    *list() {
      const d = yield* dialect();
      const rows = yield* all<FirmwareRow>(
        `SELECT ${COLUMNS} FROM firmwares ORDER BY created_at DESC, ${d.tieBreak("firmwares")} DESC`,
      );
      return rows.map(toFirmware);
    },
    get: (id) => getFirmware(id),
    *nameTaken(name) {
      return (yield* one("SELECT 1 FROM firmwares WHERE name = ?", name)) !== undefined;
    },
    *firstWithSha256(sha256, exceptId) {
      const d = yield* dialect();
      const row = yield* one<FirmwareRow>(
        `SELECT ${COLUMNS} FROM firmwares WHERE sha256 = ? AND id != ? ORDER BY created_at, ${
          d.tieBreak("firmwares")
        } LIMIT 1`,
        sha256,
        exceptId ?? "",
      );
      return row ? toFirmware(row) : null;
    },
    *ids() {
      return (yield* all<{ id: string }>("SELECT id FROM firmwares")).map((r) => r.id);
    },
    insert: (f, digests) =>
      write(function* () {
        const d = yield* dialect();
        try {
          yield* run(
            `INSERT INTO firmwares (${COLUMNS}, sha1, md5) VALUES (?, ?, ?, ?, ?, ?, ?)`,
            f._id,
            f.name,
            f.size,
            f.sha256,
            f.createdAt,
            digests?.sha1 ?? null,
            digests?.md5 ?? null,
          );
        } catch (err) {
          if (d.isUniqueViolation(err)) throw new ConflictError(firmwareNameTaken(f.name));
          throw err;
        }
        yield* appendAudit(firmwareEntry("firmware.upload", f));
      }),
    remove: (id) =>
      write(function* () {
        const firmware = yield* getFirmware(id, true);
        if (!firmware) throw new NotFoundError(noFirmware(id));
        const types = yield* all<{ name: string }>(
          "SELECT name FROM device_types WHERE default_firmware = ? ORDER BY name",
          id,
        );
        const devices = yield* one<{ n: number }>("SELECT count(*) AS n FROM devices WHERE firmware_id = ?", id);
        const rollouts = yield* all<{ name: string }>(
          "SELECT name FROM rollouts WHERE firmware_id = ? AND state IN ('draft', 'running', 'paused') ORDER BY name",
          id,
        );
        const use = {
          defaultOf: types.map((t) => t.name),
          devices: Number(devices!.n),
          rollouts: rollouts.map((r) => r.name),
        };
        if (isInUse(use)) throw new ConflictError(firmwareInUse(firmware.name, use));
        yield* run("DELETE FROM firmwares WHERE id = ?", id);
        yield* appendAudit(firmwareEntry("firmware.delete", firmware));
        return firmware;
      }),
  });
}
