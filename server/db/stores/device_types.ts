import { type DeviceType, deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { newId } from "../../../shared/ids.ts";
import { InvalidError, NotFoundError } from "../errors.ts";
import { heldByRolloutSql, noDefaultFirmware, noDeviceType } from "../rules/device_types.ts";
import { holdingRollouts, holdingRolloutsSql } from "../rules/firmware_in_effect.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import type { DeviceTypeStore } from "../types/device_types.ts";
import { all, dialect, type Engine, firstMissingId, nextRevision, one, read, run, storeOf, write } from "../runner.ts";
import type { Q } from "../runner.ts";
import { appendAudit } from "./audit.ts";
import { requireReleasable } from "./firmwares.ts";

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
  etag: etagOf(Number(row.revision)),
});

const COLUMNS = "id, name, default_firmware, revision";

function* getDeviceType(id: string, lock = false): Q<DeviceType | null> {
  const d = yield* dialect();
  const row = yield* one<DeviceTypeRow>(
    `SELECT ${COLUMNS} FROM device_types WHERE id = ?${lock ? d.forUpdate : ""}`,
    id,
  );
  return row ? toDeviceType(row) : null;
}

function* count(where: string, ...args: (string | number)[]): Q<number> {
  return Number((yield* one<{ n: number }>(`SELECT count(*) AS n FROM devices d${where}`, ...args))!.n);
}

export function deviceTypeStore(engine: Engine): DeviceTypeStore {
  return storeOf<DeviceTypeStore>(engine, {
    *list() {
      return (yield* all<DeviceTypeRow>(`SELECT ${COLUMNS} FROM device_types ORDER BY name`)).map(toDeviceType);
    },
    get: (id) => getDeviceType(id),
    reach: (id, product) =>
      read(function* () {
        const type = yield* getDeviceType(id);
        if (!type) return null;
        const total = yield* count("");
        if (type.name !== deviceTypeName(product)) return { total, devices: 0, custom: 0, rollout: 0 };
        const custom = yield* count(" WHERE d.firmware_id IS NOT NULL");
        const d = yield* dialect();
        const args: (string | number)[] = [];
        const holding = holdingRollouts((yield* all(holdingRolloutsSql(d.tieBreak("rollouts")))) as never);
        const held = heldByRolloutSql(holding, (v) => {
          args.push(v);
          return "?";
        }, d.bucket);
        const rollout = held === null ? 0 : yield* count(` WHERE d.firmware_id IS NULL AND ${held}`, ...args);
        return { total, devices: total - custom - rollout, custom, rollout };
      }),
    ensure: (product) =>
      write(function* () {
        const id = newId();
        const name = deviceTypeName(product);
        const added = yield* run(
          "INSERT INTO device_types (id, name) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
          id,
          name,
        );
        if (added > 0) yield* appendAudit({ action: "device_type.create", target: { type: "device_type", id, name } });
      }),
    setDefaultFirmware: (id, firmwareId, ifMatch) =>
      write(function* () {
        const current = yield* getDeviceType(id, true);
        if (!current) throw new NotFoundError(noDeviceType(id));
        checkIfMatch(ifMatch, current.etag, `Device type ${current.name}`);
        if (firmwareId !== null && (yield* firstMissingId("firmwares", [firmwareId])) !== null) {
          throw new InvalidError(noDefaultFirmware(firmwareId));
        }
        if (firmwareId !== null && firmwareId !== current.defaultFirmware) {
          yield* requireReleasable(firmwareId, "be a device type's default");
        }
        yield* run(
          "UPDATE device_types SET default_firmware = ?, revision = ? WHERE id = ?",
          firmwareId,
          yield* nextRevision(),
          id,
        );
        const after = (yield* getDeviceType(id))!;
        yield* appendAudit({
          action: "device_type.update",
          target: { type: "device_type", id, name: current.name },
          details: { defaultFirmware: firmwareId, before: { defaultFirmware: current.defaultFirmware } },
        });
        return after;
      }),
  });
}
