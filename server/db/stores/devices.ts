import type {
  Admission,
  Device,
  DeviceUpdate,
  PreauthorizeManyResult,
  VersionInfo,
} from "../../../shared/schemas/device.ts";
import { refreshDeviceKeys, syncKeys } from "./firmware_keys.ts";
import { type AdmissionAction, admissionAuditAction, afterAction, alreadyKnown } from "../rules/admission.ts";
import { now } from "../clock.ts";
import { NotFoundError } from "../errors.ts";
import {
  devicePatchWrites,
  deviceTarget,
  deviceUpdateDetails,
  noDevice,
  patchedProductType,
} from "../rules/devices.ts";
import { likePattern } from "../rules/like.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import { isPlainView } from "../rules/device_view.ts";
import type { DeviceChanges, DeviceFilter, DevicePage, DeviceStore } from "../types/devices.ts";
import type { IfMatch } from "../types/revisions.ts";
import {
  all,
  dialect,
  type Engine,
  firstMissingId,
  nextRevision,
  one,
  type Param,
  type Q,
  read,
  run,
  storeOf,
  write,
  writeRetried,
} from "../runner.ts";
import { appendAudit } from "./audit.ts";
import { requireReleasable } from "./firmwares.ts";
import { idList, idListSql, indexedBy, likeAscii, positioned, same } from "./dialect_sql.ts";
import type { FleetCounts } from "./fleet_counts.ts";
import { bulkDevices, namesOf, viewBatch, viewIds } from "./device_views.ts";
import { onePage } from "./device_page.ts";

interface DeviceRow {
  device_id: string;
  product_type_id: string | null;
  firmware_id: string | null;
  created_at: string;
  updated_at: string;
  last_logged_in: string | null;
  version_info: string | null;
  update_status: string | null;
  revision: number;
  admission: Admission;
  credentials_issued_at: string | null;
  attributes: string | null;
  module_ids: unknown;
  treatment_ids: unknown;
}

/** The device columns plus its module and treatment ids (in list order): one row per device. */
function* selectDevice(): Q<string> {
  const d = yield* dialect();
  return `
  SELECT d.device_id, d.product_type_id, d.firmware_id, d.created_at, d.updated_at,
    (SELECT s.last_logged_in FROM device_seen s WHERE s.device_id = d.device_id) AS last_logged_in, d.version_info,
    d.update_status, d.revision, d.admission, d.credentials_issued_at, d.attributes,
    ${idListSql(d, "m.module_id", "device_modules m WHERE m.device_id = d.device_id", "m.position")} AS module_ids,
    ${idListSql(d, "t.treatment_id", "device_treatments t WHERE t.device_id = d.device_id", "t.position")}
      AS treatment_ids
  FROM devices d`;
}

function toDevice(row: DeviceRow): Device {
  return {
    deviceId: row.device_id,
    productTypeId: row.product_type_id,
    moduleIds: idList(row.module_ids),
    additionalTreatmentIds: idList(row.treatment_ids),
    firmware: row.firmware_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastLoggedIn: row.last_logged_in,
    versionInfo: row.version_info === null ? null : JSON.parse(row.version_info) as VersionInfo,
    update: row.update_status === null ? null : JSON.parse(row.update_status) as DeviceUpdate,
    etag: etagOf(Number(row.revision)),
    admission: row.admission,
    credentialsIssuedAt: row.credentials_issued_at,
    attributes: row.attributes === null ? null : JSON.parse(row.attributes) as Record<string, string>,
  };
}

export function* getDevice(deviceId: string, lock = false): Q<Device | null> {
  const d = yield* dialect();
  const row = yield* one<DeviceRow>(
    `${yield* selectDevice()} WHERE d.device_id = ?${lock ? d.forUpdate : ""}`,
    deviceId,
  );
  return row ? toDevice(row) : null;
}

/**
 * One page ordered by deviceId; `q` filters by case-insensitive substring, `filter.admission` by admission state (an
 * index of its own). With a filter, the COUNT is skipped when the page itself shows where the list ends (a partial or
 * empty first page). Without one, the total is SQLite's count of its narrowest index, PostgreSQL's device_count
 * counter row (moved by triggers with every insert and delete), and the page is walked from the nearer end of the
 * index: the last pages cost as little as the first.
 */
function* listDevices(page: number, perPage: number, q?: string, filter: DeviceFilter = {}): Q<DevicePage> {
  const d = yield* dialect();
  const select = yield* selectDevice();
  const offset = page * perPage;
  if (q || filter.admission) {
    const where: string[] = [];
    const args: Param[] = [];
    if (q) {
      where.push(likeAscii(d, "d.device_id"));
      args.push(likePattern(q));
    }
    if (filter.admission) {
      where.push("d.admission = ?");
      args.push(filter.admission);
    }
    const cond = where.join(" AND ");
    const rows = yield* all<DeviceRow>(
      `${select} WHERE ${cond} ORDER BY d.device_id LIMIT ? OFFSET ?`,
      ...args,
      perPage,
      offset,
    );
    const ends = rows.length < perPage && (rows.length > 0 || offset === 0);
    const total = ends ? offset + rows.length : Number(
      (yield* one<{ total: number }>(`SELECT count(*) AS total FROM devices d WHERE ${cond}`, ...args))!.total,
    );
    return { data: rows.map(toDevice), total };
  }
  const total = Number(
    d.engine === "sqlite"
      ? (yield* one<{ n: number }>("SELECT count(*) AS n FROM devices INDEXED BY devices_order"))!.n
      : (yield* one<{ n: number }>("SELECT value AS n FROM change_counters WHERE name = 'device_count'"))!.n,
  );
  if (offset >= total) return { data: [], total };
  const fromEnd = offset > total / 2;
  const limits = fromEnd
    ? [Math.min(perPage, total - offset), Math.max(0, total - offset - perPage)]
    : [perPage, offset];
  let rows: DeviceRow[];
  if (d.engine === "sqlite") {
    // The narrow index first, then the rows of the page's ids.
    const ids = yield* all<{ device_id: string }>(
      `SELECT device_id FROM devices INDEXED BY devices_order ORDER BY device_id${
        fromEnd ? " DESC" : ""
      } LIMIT ? OFFSET ?`,
      ...limits,
    );
    rows = yield* all<DeviceRow>(
      `${select} WHERE ${d.inList("d.device_id")} ORDER BY d.device_id`,
      d.list(ids.map((r) => r.device_id)),
    );
  } else {
    rows = fromEnd
      ? yield* all<DeviceRow>(
        `SELECT * FROM (${select} ORDER BY d.device_id DESC LIMIT ? OFFSET ?) p ORDER BY device_id`,
        ...limits,
      )
      : yield* all<DeviceRow>(`${select} ORDER BY d.device_id LIMIT ? OFFSET ?`, ...limits);
  }
  return { data: rows.map(toDevice), total };
}

/** The devices of the ids, in the ids' order. */
function* devicesInOrder(ids: string[]): Q<Device[]> {
  if (ids.length === 0) return [];
  const d = yield* dialect();
  const rows = yield* all<DeviceRow>(`${yield* selectDevice()} WHERE ${d.inList("d.device_id")}`, d.list(ids));
  return inOrder(ids, rows);
}

/** The devices of `rows` in the order of `ids` (an id without its row left out). */
function inOrder(ids: string[], rows: DeviceRow[]): Device[] {
  const byId = new Map(rows.map((r) => [r.device_id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toDevice(row)] : [];
  });
}

/** The first module id of the list that is not a module of the product type (or any module when it is null). */
function* firstForeignModule(productTypeId: string | null, moduleIds: string[]): Q<string | null> {
  if (moduleIds.length === 0) return null;
  const d = yield* dialect();
  const rows = yield* all<{ id: string }>(
    `SELECT id FROM modules WHERE ${d.inList("id")} AND ${same(d, "product_type_id", "?")}`,
    d.list(moduleIds),
    productTypeId,
  );
  const own = new Set(rows.map((r) => r.id));
  return moduleIds.find((id) => !own.has(id)) ?? null;
}

/** Writes checked changes and bumps updatedAt and the revision (in the caller's write transaction). */
export function* updateDevice(deviceId: string, changes: DeviceChanges): Q<void> {
  const d = yield* dialect();
  if (changes.productTypeId !== undefined) {
    yield* run("UPDATE devices SET product_type_id = ? WHERE device_id = ?", changes.productTypeId, deviceId);
  }
  if (changes.firmware !== undefined) {
    yield* run("UPDATE devices SET firmware_id = ? WHERE device_id = ?", changes.firmware, deviceId);
  }
  if (changes.productTypeId !== undefined || changes.firmware !== undefined) {
    yield* refreshDeviceKeys("d.device_id = ?", [deviceId]);
  }
  if (changes.moduleIds !== undefined) {
    yield* run("DELETE FROM device_modules WHERE device_id = ?", deviceId);
    if (changes.moduleIds.length) {
      yield* run(
        `INSERT INTO device_modules (device_id, module_id, position) SELECT ?, u.value, u.position FROM ${
          positioned(d)
        }`,
        deviceId,
        d.list(changes.moduleIds),
      );
    }
  }
  if (changes.additionalTreatmentIds !== undefined) {
    yield* run("DELETE FROM device_treatments WHERE device_id = ?", deviceId);
    if (changes.additionalTreatmentIds.length) {
      yield* run(
        `INSERT INTO device_treatments (device_id, treatment_id, position)
         SELECT ?, u.value, u.position FROM ${positioned(d)}`,
        deviceId,
        d.list(changes.additionalTreatmentIds),
      );
    }
  }
  yield* run(
    "UPDATE devices SET updated_at = ?, revision = ? WHERE device_id = ?",
    now(),
    yield* nextRevision(),
    deviceId,
  );
}

function* patchDevice(deviceId: string, patch: DeviceChanges, ifMatch?: IfMatch): Q<Device> {
  const device = yield* getDevice(deviceId, true);
  if (!device) throw new NotFoundError(noDevice(deviceId));
  checkIfMatch(ifMatch, device.etag, `Device ${deviceId}`);
  const productTypeId = patchedProductType(device.productTypeId, patch);
  if (patch.firmware != null && patch.firmware !== device.firmware) {
    yield* requireReleasable(patch.firmware, "be a device's custom firmware");
  }
  const changes = devicePatchWrites(device.productTypeId, patch, {
    productTypeExists: patch.productTypeId == null ||
      (yield* firstMissingId("product_types", [patch.productTypeId])) === null,
    firmwareExists: patch.firmware == null || (yield* firstMissingId("firmwares", [patch.firmware])) === null,
    missingTreatment: yield* firstMissingId("treatments", patch.additionalTreatmentIds ?? []),
    missingModule: yield* firstMissingId("modules", patch.moduleIds ?? []),
    foreignModule: yield* firstForeignModule(productTypeId, patch.moduleIds ?? []),
  });
  yield* updateDevice(deviceId, changes);
  const saved = (yield* getDevice(deviceId))!;
  yield* appendAudit({
    action: "device.update",
    target: deviceTarget(deviceId),
    details: deviceUpdateDetails(device, patch),
  });
  return saved;
}

/** Records unknown devices as accepted without a token (a pre-authorization), in the caller's transaction. */
function* insertPreauthorized(deviceIds: string[], at: string): Q<void> {
  const d = yield* dialect();
  yield* run(
    `INSERT INTO devices (device_id, created_at, updated_at, admission)
     SELECT u.value, ?, ?, 'accepted' FROM ${positioned(d)}`,
    at,
    at,
    d.list(deviceIds),
  );
  yield* refreshDeviceKeys(d.inList("d.device_id"), [d.list(deviceIds)]);
}

function* preauthorizeMany(deviceIds: string[]): Q<PreauthorizeManyResult> {
  const d = yield* dialect();
  const ids = [...new Set(deviceIds)];
  const known = new Map<string, Admission>();
  for (
    const r of yield* all<{ device_id: string; admission: Admission }>(
      `SELECT device_id, admission FROM devices WHERE ${d.inList("device_id")}`,
      d.list(ids),
    )
  ) known.set(r.device_id, r.admission);
  const created = ids.filter((id) => !known.has(id));
  if (created.length) {
    yield* insertPreauthorized(created, now());
    for (const deviceId of created) {
      yield* appendAudit({ action: "device.preauthorize", target: deviceTarget(deviceId) });
    }
  }
  return {
    created,
    existing: ids.filter((id) => known.has(id)).map((deviceId) => ({ deviceId, admission: known.get(deviceId)! })),
  };
}

function* admitDevice(deviceId: string, action: AdmissionAction): Q<Device> {
  const d = yield* dialect();
  const row = yield* one<{ admission: Admission; token_hash: string | null }>(
    `SELECT admission, token_hash FROM devices WHERE device_id = ?${d.forUpdate}`,
    deviceId,
  );
  if (!row) throw new NotFoundError(noDevice(deviceId));
  const next = afterAction({ admission: row.admission, hasToken: row.token_hash !== null }, action);
  const keep = next.keepToken ? 1 : 0;
  yield* run(
    `UPDATE devices SET admission = ?, updated_at = ?, revision = ?,
       token_hash = CASE WHEN ? = 1 THEN token_hash END,
       credentials_issued_at = CASE WHEN ? = 1 THEN credentials_issued_at END
     WHERE device_id = ?`,
    next.admission,
    now(),
    yield* nextRevision(),
    keep,
    keep,
    deviceId,
  );
  yield* appendAudit({
    action: admissionAuditAction(action),
    target: deviceTarget(deviceId),
    details: { from: row.admission, to: next.admission, hadToken: row.token_hash !== null },
  });
  return (yield* getDevice(deviceId))!;
}

function* admissionCounts(): Q<Record<Admission, number>> {
  const d = yield* dialect();
  const counts: Record<Admission, number> = { pending: 0, accepted: 0, rejected: 0 };
  for (const admission of Object.keys(counts) as Admission[]) {
    counts[admission] = Number(
      (yield* one<{ n: number }>(
        `SELECT count(*) AS n FROM devices${indexedBy(d, "devices_admission")} WHERE admission = ?`,
        admission,
      ))!.n,
    );
  }
  return counts;
}

/**
 * The device store. `counts`: the engine's own counting of the fleet (the overview, exact totals, the keys sync), which
 * differs by what each engine keeps (fleet_counts.ts).
 */
export function deviceStore(engine: Engine, counts: FleetCounts): DeviceStore {
  const store = storeOf<Omit<DeviceStore, "syncFirmwareKeys">>(engine, {
    get: (deviceId) => getDevice(deviceId),
    list: (page, perPage, q, filter) => read(() => listDevices(page, perPage, q, filter)),
    view: function* (view, page, perPage, product, opts) {
      if ((yield* dialect()).engine === "postgres" && !(isPlainView(view) && opts?.count !== false)) {
        // One statement where it can be (device_page.ts), else the reads below in one transaction.
        const at = yield* onePage(counts, view, page, perPage, product, opts?.count !== false, yield* selectDevice());
        if (at !== null) {
          return { data: inOrder(at.ids, at.rows as unknown as DeviceRow[]), total: at.total, exact: at.exact };
        }
      }
      return yield* read(function* () {
        if (isPlainView(view) && opts?.count !== false) return yield* listDevices(page, perPage, view.filter.q?.trim());
        const { ids, total, exact } = yield* viewIds(counts, view, page, perPage, product, opts?.count !== false);
        return { data: yield* devicesInOrder(ids), total, exact };
      });
    },
    batch: (view, after, limit, product) =>
      read(function* () {
        const { ids, next } = yield* viewBatch(view, after, limit, product);
        return { data: yield* devicesInOrder(ids), next };
      }),
    bulk: (target, set, product) => writeRetried(() => bulkDevices(target, set, product)),
    overview: (product) => read(() => counts.overview(product)),
    pruneCounts: (at = new Date()) => counts.pruneSeen(at),
    names: () => read(namesOf),
    patch: (deviceId, changes, ifMatch) => writeRetried(() => patchDevice(deviceId, changes, ifMatch)),
    remove: (deviceId, ifMatch) =>
      write(function* () {
        const d = yield* dialect();
        const row = yield* one<{ revision: number }>(
          `SELECT revision FROM devices WHERE device_id = ?${d.forUpdate}`,
          deviceId,
        );
        if (!row) throw new NotFoundError(noDevice(deviceId));
        checkIfMatch(ifMatch, etagOf(Number(row.revision)), `Device ${deviceId}`);
        yield* run("DELETE FROM devices WHERE device_id = ?", deviceId);
        yield* appendAudit({ action: "device.delete", target: deviceTarget(deviceId) });
      }),
    *version() {
      return Number((yield* one<{ value: number }>("SELECT value FROM change_counters WHERE name = 'devices'"))!.value);
    },
    preauthorize: (deviceId) =>
      writeRetried(function* () {
        const row = yield* one<{ admission: Admission }>("SELECT admission FROM devices WHERE device_id = ?", deviceId);
        if (row) throw alreadyKnown(deviceId, row.admission);
        yield* insertPreauthorized([deviceId], now());
        yield* appendAudit({ action: "device.preauthorize", target: deviceTarget(deviceId) });
        return (yield* getDevice(deviceId))!;
      }),
    preauthorizeMany: (deviceIds) => writeRetried(() => preauthorizeMany(deviceIds)),
    admit: (deviceId, action) => write(() => admitDevice(deviceId, action)),
    admissionCounts: () => read(admissionCounts),
  });
  // The keys sync runs in slices with turns between them: the one method that is not one store operation.
  return { ...store, syncFirmwareKeys: (product) => syncKeys(engine, product) };
}
