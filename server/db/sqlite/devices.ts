import { refreshDeviceKeys, syncKeys } from "./firmware_keys.ts";
import type {
  Admission,
  Device,
  DeviceUpdate,
  PreauthorizeManyResult,
  VersionInfo,
} from "../../../shared/schemas/device.ts";
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
import type { DeviceChanges, DeviceFilter, DevicePage, DeviceStore } from "../types/devices.ts";
import type { IfMatch } from "../types/revisions.ts";
import { appendAudit } from "./audit.ts";
import { type Db, firstMissingId, snapshot, sql, transaction } from "./open.ts";
import { bulkDevices, namesOf, overviewOf, viewBatch, viewIds } from "./device_views.ts";
import { isPlainView } from "../rules/device_view.ts";
import { promised } from "./promised.ts";
import { nextRevision } from "./revisions.ts";

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
  module_ids: string;
  treatment_ids: string;
}

/** The device columns plus its module and treatment ids (in list order) as JSON arrays: one row per device. */
const SELECT_DEVICE = `
  SELECT d.device_id, d.product_type_id, d.firmware_id, d.created_at, d.updated_at, d.last_logged_in, d.version_info,
    d.update_status, d.revision, d.admission, d.credentials_issued_at,
    (SELECT json_group_array(m.module_id ORDER BY m.position) FROM device_modules m WHERE m.device_id = d.device_id)
      AS module_ids,
    (SELECT json_group_array(t.treatment_id ORDER BY t.position) FROM device_treatments t WHERE t.device_id = d.device_id)
      AS treatment_ids
  FROM devices d`;

function toDevice(row: DeviceRow): Device {
  return {
    deviceId: row.device_id,
    productTypeId: row.product_type_id,
    moduleIds: JSON.parse(row.module_ids),
    additionalTreatmentIds: JSON.parse(row.treatment_ids),
    firmware: row.firmware_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastLoggedIn: row.last_logged_in,
    versionInfo: row.version_info === null ? null : JSON.parse(row.version_info) as VersionInfo,
    update: row.update_status === null ? null : JSON.parse(row.update_status) as DeviceUpdate,
    etag: etagOf(row.revision),
    admission: row.admission,
    credentialsIssuedAt: row.credentials_issued_at,
  };
}

function getDevice(db: Db, deviceId: string): Device | null {
  const row = sql(db, `${SELECT_DEVICE} WHERE d.device_id = ?`).get(deviceId) as DeviceRow | undefined;
  return row ? toDevice(row) : null;
}

/**
 * One page ordered by deviceId; `q` filters by case-insensitive substring (device ids are ASCII, LIKE folds ASCII),
 * `filter.admission` by admission state (an index of its own). With a filter, the COUNT is skipped when the page
 * itself shows where the list ends (a partial or empty first page).
 */
function listDevices(db: Db, page: number, perPage: number, q?: string, filter: DeviceFilter = {}): DevicePage {
  const offset = page * perPage;
  if (q || filter.admission) {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q) {
      where.push("d.device_id LIKE ? ESCAPE '\\'");
      args.push(likePattern(q));
    }
    if (filter.admission) {
      where.push("d.admission = ?");
      args.push(filter.admission);
    }
    const cond = where.join(" AND ");
    const rows = sql(db, `${SELECT_DEVICE} WHERE ${cond} ORDER BY d.device_id LIMIT ? OFFSET ?`)
      .all(...args, perPage, offset) as unknown as DeviceRow[];
    const ends = rows.length < perPage && (rows.length > 0 || offset === 0);
    const total = ends
      ? offset + rows.length
      : (sql(db, `SELECT COUNT(*) AS total FROM devices d WHERE ${cond}`).get(...args) as { total: number }).total;
    return { data: rows.map(toDevice), total };
  }
  const total = (sql(db, "SELECT COUNT(*) AS total FROM devices INDEXED BY devices_order").get() as { total: number })
    .total;
  if (offset >= total) return { data: [], total };
  // Walk the narrow index from the nearer end: the last pages cost as little as the first.
  const fromEnd = offset > total / 2;
  const ids = fromEnd
    ? sql(db, "SELECT device_id FROM devices INDEXED BY devices_order ORDER BY device_id DESC LIMIT ? OFFSET ?")
      .all(Math.min(perPage, total - offset), Math.max(0, total - offset - perPage))
    : sql(db, "SELECT device_id FROM devices INDEXED BY devices_order ORDER BY device_id LIMIT ? OFFSET ?")
      .all(perPage, offset);
  const rows = sql(db, `${SELECT_DEVICE} WHERE d.device_id IN (SELECT value FROM json_each(?)) ORDER BY d.device_id`)
    .all(JSON.stringify((ids as { device_id: string }[]).map((r) => r.device_id))) as unknown as DeviceRow[];
  return { data: rows.map(toDevice), total };
}

/** The devices of the ids, in the ids' order. */
function devicesInOrder(db: Db, ids: string[]): Device[] {
  if (ids.length === 0) return [];
  const rows = sql(db, `${SELECT_DEVICE} WHERE d.device_id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(ids)) as unknown as DeviceRow[];
  const byId = new Map(rows.map((r) => [r.device_id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toDevice(row)] : [];
  });
}

/** Records an unknown device as accepted without a token (a pre-authorization), in the caller's transaction. */
function insertPreauthorized(db: Db, deviceId: string, at: string): void {
  sql(
    db,
    `INSERT INTO devices (device_id, created_at, updated_at, admission) VALUES (?1, ?2, ?2, 'accepted')`,
  ).run(deviceId, at);
  refreshDeviceKeys(db, "d.device_id = ?", [deviceId]);
}

function preauthorizeMany(db: Db, deviceIds: string[]): PreauthorizeManyResult {
  return transaction(db, () => {
    const at = now();
    const result: PreauthorizeManyResult = { created: [], existing: [] };
    const seen = new Set<string>();
    for (const deviceId of deviceIds) {
      if (seen.has(deviceId)) continue;
      seen.add(deviceId);
      const row = sql(db, "SELECT admission FROM devices WHERE device_id = ?").get(deviceId) as
        | { admission: Admission }
        | undefined;
      if (row) result.existing.push({ deviceId, admission: row.admission });
      else {
        insertPreauthorized(db, deviceId, at);
        result.created.push(deviceId);
        appendAudit(db, { action: "device.preauthorize", target: deviceTarget(deviceId) });
      }
    }
    return result;
  });
}

function admitDevice(db: Db, deviceId: string, action: AdmissionAction): Device {
  return transaction(db, () => {
    const row = sql(db, "SELECT admission, token_hash FROM devices WHERE device_id = ?").get(deviceId) as
      | { admission: Admission; token_hash: string | null }
      | undefined;
    if (!row) throw new NotFoundError(noDevice(deviceId));
    const next = afterAction({ admission: row.admission, hasToken: row.token_hash !== null }, action);
    sql(
      db,
      `UPDATE devices SET admission = ?, updated_at = ?, revision = ?,
         token_hash = CASE WHEN ? THEN token_hash END,
         credentials_issued_at = CASE WHEN ? THEN credentials_issued_at END
       WHERE device_id = ?`,
    ).run(next.admission, now(), nextRevision(db), next.keepToken ? 1 : 0, next.keepToken ? 1 : 0, deviceId);
    appendAudit(db, {
      action: admissionAuditAction(action),
      target: deviceTarget(deviceId),
      details: { from: row.admission, to: next.admission, hadToken: row.token_hash !== null },
    });
    return getDevice(db, deviceId)!;
  });
}

function admissionCounts(db: Db): Record<Admission, number> {
  const counts: Record<Admission, number> = { pending: 0, accepted: 0, rejected: 0 };
  for (const admission of Object.keys(counts) as Admission[]) {
    counts[admission] = (sql(
      db,
      "SELECT COUNT(*) AS n FROM devices INDEXED BY devices_admission WHERE admission = ?",
    ).get(admission) as { n: number }).n;
  }
  return counts;
}

/** The first module id of the list that is not a module of the product type (or any module when it is null). */
function firstForeignModule(db: Db, productTypeId: string | null, moduleIds: string[]): string | null {
  if (moduleIds.length === 0) return null;
  const row = sql(
    db,
    `SELECT j.value AS id FROM json_each(?) j LEFT JOIN modules m ON m.id = j.value AND m.product_type_id IS ?
     WHERE m.id IS NULL ORDER BY j.key LIMIT 1`,
  ).get(JSON.stringify(moduleIds), productTypeId) as { id: string } | undefined;
  return row?.id ?? null;
}

/** Writes checked changes and bumps updatedAt and the revision (in the caller's transaction). */
export function updateDevice(db: Db, deviceId: string, changes: DeviceChanges): void {
  transaction(db, () => {
    if (changes.productTypeId !== undefined) {
      sql(db, "UPDATE devices SET product_type_id = ? WHERE device_id = ?").run(changes.productTypeId, deviceId);
    }
    if (changes.firmware !== undefined) {
      sql(db, "UPDATE devices SET firmware_id = ? WHERE device_id = ?").run(changes.firmware, deviceId);
    }
    if (changes.productTypeId !== undefined || changes.firmware !== undefined) {
      refreshDeviceKeys(db, "d.device_id = ?", [deviceId]);
    }
    if (changes.moduleIds !== undefined) {
      sql(db, "DELETE FROM device_modules WHERE device_id = ?").run(deviceId);
      sql(db, "INSERT INTO device_modules (device_id, module_id, position) SELECT ?, value, key FROM json_each(?)")
        .run(deviceId, JSON.stringify(changes.moduleIds));
    }
    if (changes.additionalTreatmentIds !== undefined) {
      sql(db, "DELETE FROM device_treatments WHERE device_id = ?").run(deviceId);
      sql(
        db,
        "INSERT INTO device_treatments (device_id, treatment_id, position) SELECT ?, value, key FROM json_each(?)",
      )
        .run(deviceId, JSON.stringify(changes.additionalTreatmentIds));
    }
    sql(db, "UPDATE devices SET updated_at = ?, revision = ? WHERE device_id = ?").run(
      now(),
      nextRevision(db),
      deviceId,
    );
  });
}

/** The device's entity tag, or NotFoundError. */
function etagOfDevice(db: Db, deviceId: string): string {
  const row = sql(db, "SELECT revision FROM devices WHERE device_id = ?").get(deviceId) as
    | { revision: number }
    | undefined;
  if (!row) throw new NotFoundError(noDevice(deviceId));
  return etagOf(row.revision);
}

function patchDevice(db: Db, deviceId: string, patch: DeviceChanges, ifMatch?: IfMatch): Device {
  return transaction(db, () => {
    const device = getDevice(db, deviceId);
    if (!device) throw new NotFoundError(noDevice(deviceId));
    checkIfMatch(ifMatch, device.etag, `Device ${deviceId}`);
    const exists = (table: "product_types" | "firmwares", id: string | null | undefined) =>
      id == null || firstMissingId(db, table, [id]) === null;
    const productTypeId = patchedProductType(device.productTypeId, patch);
    const changes = devicePatchWrites(device.productTypeId, patch, {
      productTypeExists: exists("product_types", patch.productTypeId),
      firmwareExists: exists("firmwares", patch.firmware),
      missingTreatment: firstMissingId(db, "treatments", patch.additionalTreatmentIds ?? []),
      missingModule: firstMissingId(db, "modules", patch.moduleIds ?? []),
      foreignModule: firstForeignModule(db, productTypeId, patch.moduleIds ?? []),
    });
    updateDevice(db, deviceId, changes);
    appendAudit(db, {
      action: "device.update",
      target: deviceTarget(deviceId),
      details: deviceUpdateDetails(device, patch),
    });
    return getDevice(db, deviceId)!;
  });
}

const DEVICES_VERSION = "SELECT value FROM change_counters WHERE name = 'devices'";

export function sqliteDevices(db: Db): DeviceStore {
  // The keys sync runs in slices with turns between them: the one asynchronous method.
  return { ...syncDevices(db), syncFirmwareKeys: (product) => syncKeys(db, product) };
}

function syncDevices(db: Db): Omit<DeviceStore, "syncFirmwareKeys"> {
  return promised<Omit<DeviceStore, "syncFirmwareKeys">>({
    get: (deviceId) => getDevice(db, deviceId),
    list: (page, perPage, q, filter) => snapshot(db, () => listDevices(db, page, perPage, q, filter)),
    view: (view, page, perPage, product, opts) =>
      snapshot(db, () => {
        if (isPlainView(view) && opts?.count !== false) return listDevices(db, page, perPage, view.filter.q?.trim());
        const { ids, total, exact } = viewIds(db, view, page, perPage, product, opts?.count !== false);
        return { data: devicesInOrder(db, ids), total, exact };
      }),
    batch: (view, after, limit, product) =>
      snapshot(db, () => {
        const { ids, next } = viewBatch(db, view, after, limit, product);
        return { data: devicesInOrder(db, ids), next };
      }),
    bulk: (target, set, product) => bulkDevices(db, target, set, product),
    overview: (product) => snapshot(db, () => overviewOf(db, product)),
    pruneCounts: () => 0, // no hourly check-in counts here (SQLite counts a covering index range)
    names: () => snapshot(db, () => namesOf(db)),
    patch: (deviceId, changes, ifMatch) => patchDevice(db, deviceId, changes, ifMatch),
    remove: (deviceId, ifMatch) =>
      transaction(db, () => {
        checkIfMatch(ifMatch, etagOfDevice(db, deviceId), `Device ${deviceId}`);
        sql(db, "DELETE FROM devices WHERE device_id = ?").run(deviceId);
        appendAudit(db, { action: "device.delete", target: deviceTarget(deviceId) });
      }),
    version: () => (sql(db, DEVICES_VERSION).get() as { value: number }).value,
    preauthorize: (deviceId) =>
      transaction(db, () => {
        const row = sql(db, "SELECT admission FROM devices WHERE device_id = ?").get(deviceId) as
          | { admission: Admission }
          | undefined;
        if (row) throw alreadyKnown(deviceId, row.admission);
        insertPreauthorized(db, deviceId, now());
        appendAudit(db, { action: "device.preauthorize", target: deviceTarget(deviceId) });
        return getDevice(db, deviceId)!;
      }),
    preauthorizeMany: (deviceIds) => preauthorizeMany(db, deviceIds),
    admit: (deviceId, action) => admitDevice(db, deviceId, action),
    admissionCounts: () => snapshot(db, () => admissionCounts(db)),
  });
}
