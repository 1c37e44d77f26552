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
import type { DeviceChanges, DeviceFilter, DevicePage, DeviceStore } from "../types/devices.ts";
import type { IfMatch } from "../types/revisions.ts";
import { appendAudit } from "./audit.ts";
import {
  existing,
  firstMissingId,
  nextRevision,
  read,
  type Sql,
  type Tx,
  unlocked,
  write,
  writeRetried,
} from "./open.ts";
import { bulkDevices, namesOf, overviewOf, pruneSeenCounts, viewBatch, viewIds } from "./device_views.ts";
import { isPlainView } from "../rules/device_view.ts";

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
  module_ids: string[];
  treatment_ids: string[];
}

const SELECT_DEVICE = `
  SELECT d.device_id, d.product_type_id, d.firmware_id, d.created_at, d.updated_at, d.last_logged_in, d.version_info,
    d.update_status, d.revision, d.admission, d.credentials_issued_at,
    ARRAY(SELECT m.module_id FROM device_modules m WHERE m.device_id = d.device_id ORDER BY m.position) AS module_ids,
    ARRAY(SELECT t.treatment_id FROM device_treatments t WHERE t.device_id = d.device_id ORDER BY t.position)
      AS treatment_ids
  FROM devices d`;

function toDevice(row: DeviceRow): Device {
  return {
    deviceId: row.device_id,
    productTypeId: row.product_type_id,
    moduleIds: row.module_ids,
    additionalTreatmentIds: row.treatment_ids,
    firmware: row.firmware_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastLoggedIn: row.last_logged_in,
    versionInfo: row.version_info === null ? null : JSON.parse(row.version_info) as VersionInfo,
    update: row.update_status === null ? null : JSON.parse(row.update_status) as DeviceUpdate,
    etag: etagOf(Number(row.revision)),
    admission: row.admission,
    credentialsIssuedAt: row.credentials_issued_at,
  };
}

export async function getDevice(tx: Tx, deviceId: string, lock = false): Promise<Device | null> {
  const rows = await tx.unsafe(`${SELECT_DEVICE} WHERE d.device_id = $1${lock ? " FOR UPDATE OF d" : ""}`, [
    deviceId,
  ]);
  return rows.length ? toDevice(rows[0] as unknown as DeviceRow) : null;
}

/**
 * One page ordered by deviceId. Without q the total is the device_count counter row (moved by triggers with every
 * insert and delete), so a page costs an index walk of `offset + perPage` entries, not a count of the table.
 */
async function listDevices(
  tx: Tx,
  page: number,
  perPage: number,
  q?: string,
  filter: DeviceFilter = {},
): Promise<DevicePage> {
  const offset = page * perPage;
  if (q || filter.admission) {
    const where: string[] = [];
    const args: string[] = [];
    if (q) {
      args.push(likePattern(q));
      where.push(`ascii_lower(d.device_id) LIKE ascii_lower($${args.length}) ESCAPE '\\'`);
    }
    if (filter.admission) {
      args.push(filter.admission);
      where.push(`d.admission = $${args.length}`);
    }
    const cond = where.join(" AND ");
    const rows = await tx.unsafe(
      `${SELECT_DEVICE} WHERE ${cond} ORDER BY d.device_id LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, perPage, offset],
    ) as unknown as DeviceRow[];
    const ends = rows.length < perPage && (rows.length > 0 || offset === 0);
    const total = ends
      ? offset + rows.length
      : Number((await tx.unsafe(`SELECT count(*) AS total FROM devices d WHERE ${cond}`, args))[0].total);
    return { data: rows.map(toDevice), total };
  }
  const [{ value }] = await tx`SELECT value FROM change_counters WHERE name = 'device_count'`;
  const total = Number(value);
  if (offset >= total) return { data: [], total };
  // Walk the index from the nearer end: the last pages cost as little as the first.
  const fromEnd = offset > total / 2;
  const rows = fromEnd
    ? await tx.unsafe(
      `SELECT * FROM (${SELECT_DEVICE} ORDER BY d.device_id DESC LIMIT $1 OFFSET $2) p ORDER BY device_id`,
      [Math.min(perPage, total - offset), Math.max(0, total - offset - perPage)],
    )
    : await tx.unsafe(`${SELECT_DEVICE} ORDER BY d.device_id LIMIT $1 OFFSET $2`, [perPage, offset]);
  return { data: (rows as unknown as DeviceRow[]).map(toDevice), total };
}

/** The devices of the ids, in the ids' order. */
async function devicesInOrder(tx: Tx, ids: string[]): Promise<Device[]> {
  if (ids.length === 0) return [];
  const rows = await tx.unsafe(`${SELECT_DEVICE} WHERE d.device_id = ANY($1::text[])`, [ids]) as unknown as DeviceRow[];
  const byId = new Map(rows.map((r) => [r.device_id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toDevice(row)] : [];
  });
}

/** The first module id of the list that is not a module of the product type (or any module when it is null). */
async function firstForeignModule(tx: Tx, productTypeId: string | null, moduleIds: string[]): Promise<string | null> {
  if (moduleIds.length === 0) return null;
  const rows = await tx`SELECT id FROM modules WHERE id = ANY(${moduleIds}::text[])
    AND product_type_id IS NOT DISTINCT FROM ${productTypeId}`;
  const own = new Set(rows.map((r) => r.id as string));
  return moduleIds.find((id) => !own.has(id)) ?? null;
}

/** Writes checked changes and bumps updatedAt and the revision (in the caller's write transaction). */
export async function updateDevice(tx: Tx, deviceId: string, changes: DeviceChanges): Promise<void> {
  if (changes.productTypeId !== undefined) {
    await tx`UPDATE devices SET product_type_id = ${changes.productTypeId} WHERE device_id = ${deviceId}`;
  }
  if (changes.firmware !== undefined) {
    await tx`UPDATE devices SET firmware_id = ${changes.firmware} WHERE device_id = ${deviceId}`;
  }
  if (changes.productTypeId !== undefined || changes.firmware !== undefined) {
    await refreshDeviceKeys(tx, "d.device_id = $1", [deviceId]);
  }
  if (changes.moduleIds !== undefined) {
    await tx`DELETE FROM device_modules WHERE device_id = ${deviceId}`;
    if (changes.moduleIds.length) {
      await tx`INSERT INTO device_modules (device_id, module_id, position)
        SELECT ${deviceId}, m, n - 1 FROM unnest(${changes.moduleIds}::text[]) WITH ORDINALITY AS u(m, n)`;
    }
  }
  if (changes.additionalTreatmentIds !== undefined) {
    await tx`DELETE FROM device_treatments WHERE device_id = ${deviceId}`;
    if (changes.additionalTreatmentIds.length) {
      await tx`INSERT INTO device_treatments (device_id, treatment_id, position)
        SELECT ${deviceId}, t, n - 1 FROM unnest(${changes.additionalTreatmentIds}::text[]) WITH ORDINALITY AS u(t, n)`;
    }
  }
  await tx`UPDATE devices SET updated_at = ${now()}, revision = ${await nextRevision(
    tx,
  )} WHERE device_id = ${deviceId}`;
}

async function patchDevice(sql: Sql, deviceId: string, patch: DeviceChanges, ifMatch?: IfMatch): Promise<Device> {
  return await writeRetried(sql, async (tx) => {
    const device = await getDevice(tx, deviceId, true);
    if (!device) throw new NotFoundError(noDevice(deviceId));
    checkIfMatch(ifMatch, device.etag, `Device ${deviceId}`);
    const exists = async (table: "product_types" | "firmwares", id: string | null | undefined) =>
      id == null || (await existing(tx, table, [id])).has(id);
    const productTypeId = patchedProductType(device.productTypeId, patch);
    const changes = devicePatchWrites(device.productTypeId, patch, {
      productTypeExists: await exists("product_types", patch.productTypeId),
      firmwareExists: await exists("firmwares", patch.firmware),
      missingTreatment: await firstMissingId(tx, "treatments", patch.additionalTreatmentIds ?? []),
      missingModule: await firstMissingId(tx, "modules", patch.moduleIds ?? []),
      foreignModule: await firstForeignModule(tx, productTypeId, patch.moduleIds ?? []),
    });
    await updateDevice(tx, deviceId, changes);
    const saved = (await getDevice(tx, deviceId))!;
    await appendAudit(tx, {
      action: "device.update",
      target: deviceTarget(deviceId),
      details: deviceUpdateDetails(device, patch),
    });
    return saved;
  });
}

async function insertPreauthorized(tx: Tx, deviceId: string, at: string) {
  await tx`INSERT INTO devices (device_id, created_at, updated_at, admission) VALUES (${deviceId}, ${at}, ${at}, 'accepted')`;
  await refreshDeviceKeys(tx, "d.device_id = $1", [deviceId]);
}

function preauthorizeMany(sql: Sql, deviceIds: string[]): Promise<PreauthorizeManyResult> {
  return writeRetried(sql, async (tx) => {
    const ids = [...new Set(deviceIds)];
    const known = new Map<string, Admission>();
    for (const r of await tx`SELECT device_id, admission FROM devices WHERE device_id = ANY(${ids}::text[])`) {
      known.set(r.device_id, r.admission);
    }
    const created = ids.filter((id) => !known.has(id));
    if (created.length) {
      const at = now();
      await tx`INSERT INTO devices (device_id, created_at, updated_at, admission)
        SELECT u, ${at}, ${at}, 'accepted' FROM unnest(${created}::text[]) AS u`;
      await refreshDeviceKeys(tx, "d.device_id = ANY($1::text[])", [created]);
      for (const deviceId of created) {
        await appendAudit(tx, { action: "device.preauthorize", target: deviceTarget(deviceId) });
      }
    }
    return {
      created,
      existing: ids.filter((id) => known.has(id)).map((deviceId) => ({ deviceId, admission: known.get(deviceId)! })),
    };
  });
}

function admitDevice(sql: Sql, deviceId: string, action: AdmissionAction): Promise<Device> {
  return write(sql, async (tx) => {
    const rows = await tx`SELECT admission, token_hash FROM devices WHERE device_id = ${deviceId} FOR UPDATE`;
    if (!rows.length) throw new NotFoundError(noDevice(deviceId));
    const next = afterAction({ admission: rows[0].admission, hasToken: rows[0].token_hash !== null }, action);
    await tx`UPDATE devices SET admission = ${next.admission}, updated_at = ${now()},
        revision = ${await nextRevision(tx)},
        token_hash = CASE WHEN ${next.keepToken} THEN token_hash END,
        credentials_issued_at = CASE WHEN ${next.keepToken} THEN credentials_issued_at END
      WHERE device_id = ${deviceId}`;
    await appendAudit(tx, {
      action: admissionAuditAction(action),
      target: deviceTarget(deviceId),
      details: { from: rows[0].admission, to: next.admission, hadToken: rows[0].token_hash !== null },
    });
    return (await getDevice(tx, deviceId))!;
  });
}

function admissionCounts(sql: Sql): Promise<Record<Admission, number>> {
  return read(sql, async (tx) => {
    const counts: Record<Admission, number> = { pending: 0, accepted: 0, rejected: 0 };
    for (const admission of Object.keys(counts) as Admission[]) {
      const [{ n }] = await tx`SELECT count(*) AS n FROM devices WHERE admission = ${admission}`;
      counts[admission] = Number(n);
    }
    return counts;
  });
}

export function postgresDevices(sql: Sql): DeviceStore {
  return {
    get: (deviceId) => getDevice(sql, deviceId),
    list: (page, perPage, q, filter) => read(sql, (tx) => listDevices(tx, page, perPage, q, filter)),
    view: (view, page, perPage, product, opts) =>
      read(sql, async (tx) => {
        if (isPlainView(view) && opts?.count !== false) return listDevices(tx, page, perPage, view.filter.q?.trim());
        const { ids, total, exact } = await viewIds(tx, view, page, perPage, product, opts?.count !== false);
        return { data: await devicesInOrder(tx, ids), total, exact };
      }),
    batch: (view, after, limit, product) =>
      read(sql, async (tx) => {
        const { ids, next } = await viewBatch(tx, view, after, limit, product);
        return { data: await devicesInOrder(tx, ids), next };
      }),
    bulk: (target, set, product) => writeRetried(sql, (tx) => bulkDevices(tx, target, set, product)),
    overview: (product) => read(sql, (tx) => overviewOf(tx, product)),
    // One statement, no write lock: it checks nothing before it deletes; a row a trigger upserts at the same moment is
    // either not deleted (its n changed) or made again by the upsert.
    pruneCounts: (at = new Date()) => unlocked(sql, (tx) => pruneSeenCounts(tx, at)),
    syncFirmwareKeys: (product) => syncKeys(sql, product),
    names: () => read(sql, (tx) => namesOf(tx)),
    patch: (deviceId, changes, ifMatch) => patchDevice(sql, deviceId, changes, ifMatch),
    remove: (deviceId, ifMatch) =>
      write(sql, async (tx) => {
        const rows = await tx`SELECT revision FROM devices WHERE device_id = ${deviceId} FOR UPDATE`;
        if (!rows.length) throw new NotFoundError(noDevice(deviceId));
        checkIfMatch(ifMatch, etagOf(Number(rows[0].revision)), `Device ${deviceId}`);
        await tx`DELETE FROM devices WHERE device_id = ${deviceId}`;
        await appendAudit(tx, { action: "device.delete", target: deviceTarget(deviceId) });
      }),
    version: async () => Number((await sql`SELECT value FROM change_counters WHERE name = 'devices'`)[0].value),
    preauthorize: (deviceId) =>
      writeRetried(sql, async (tx) => {
        const rows = await tx`SELECT admission FROM devices WHERE device_id = ${deviceId}`;
        if (rows.length) throw alreadyKnown(deviceId, rows[0].admission);
        await insertPreauthorized(tx, deviceId, now());
        await appendAudit(tx, { action: "device.preauthorize", target: deviceTarget(deviceId) });
        return (await getDevice(tx, deviceId))!;
      }),
    preauthorizeMany: (deviceIds) => preauthorizeMany(sql, deviceIds),
    admit: (deviceId, action) => admitDevice(sql, deviceId, action),
    admissionCounts: () => admissionCounts(sql),
  };
}
