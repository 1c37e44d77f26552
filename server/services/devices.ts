/**
 * Devices as the operator API shows them: DEVICE_AUTH=shared's rules (docs/REQUIREMENTS.md §11: every device is accepted and holds
 * no token of its own, whatever its row says: a server switched back from token mode keeps the rows for a later
 * switch), the filter of a list's query, the page cache, admission actions and bulk changes.
 */
import type {
  Admission,
  Device,
  DeviceBulk,
  DeviceFilter,
  DeviceListQuery,
  PreauthorizeManyResult,
} from "../../shared/schemas/device.ts";
import { DEVICE_FILTER_KEYS } from "../../shared/schemas/device.ts";
import type { AppContext } from "../context.ts";
import type { AdmissionAction } from "../db/rules/admission.ts";
import { noDevice } from "../db/rules/devices.ts";
import type { IfMatch } from "../db/types/revisions.ts";
import { conflict, notFound } from "../errors.ts";
import { ReadCache } from "../lib/read_cache.ts";
import type * as z from "zod";

/** The filter members of a parsed query (undefined ones left out). */
export function filterOf(query: Record<string, unknown>): DeviceFilter {
  const filter: Record<string, unknown> = {};
  for (const key of DEVICE_FILTER_KEYS) if (query[key] !== undefined) filter[key] = query[key];
  return filter as DeviceFilter;
}

const sharedMode = (ctx: AppContext) => ctx.config.DEVICE_AUTH !== "token";

/** An admission filter in shared mode: accepted is no filter, any other matches nothing (null). */
export function sharedModeFilter(ctx: AppContext, filter: DeviceFilter): DeviceFilter | null {
  if (!sharedMode(ctx) || filter.admission === undefined) return filter;
  if (filter.admission !== "accepted") return null;
  const { admission: _, ...rest } = filter;
  return rest;
}

/** Devices by admission as the API shows them (all accepted in shared mode). */
export async function admissionCounts(ctx: AppContext): Promise<Record<Admission, number>> {
  const counts = await ctx.stores.devices.admissionCounts();
  if (!sharedMode(ctx)) return counts;
  return { pending: 0, accepted: counts.pending + counts.accepted + counts.rejected, rejected: 0 };
}

type ListQuery = z.output<typeof DeviceListQuery>;

export type DevicesService = ReturnType<typeof devicesService>;

export function devicesService(ctx: AppContext) {
  const { devices } = ctx.stores;
  const product = ctx.config.PRODUCT;
  const shared = sharedMode(ctx);
  const view = shared
    ? (device: Device): Device => ({ ...device, admission: "accepted", credentialsIssuedAt: null })
    : (device: Device) => device;
  // Pages as JSON, versioned by the devices' writes only (views that also depend on the default firmware or on
  // product type names are made fresh).
  const pages = new ReadCache(() => devices.version());

  const admit = async (deviceId: string, action: AdmissionAction): Promise<Device> => {
    if (shared) {
      if (!(await devices.get(deviceId))) throw notFound(noDevice(deviceId));
      throw conflict("Device admission is off: this server runs with DEVICE_AUTH=shared (docs/OPERATIONS.md).");
    }
    return await devices.admit(deviceId, action);
  };

  return {
    /**
     * One page as JSON text (from the cache when its data has not changed). `version`: the devices' change counter as
     * the request read it with its operator (else it is read here).
     */
    async page(query: ListQuery, version?: number): Promise<string> {
      const { page, rowsPerPage, sort, order, ...rest } = query;
      const filter = filterOf(rest);
      if (filter.q !== undefined) filter.q = filter.q.trim() || undefined;
      if (filter.q === undefined) delete filter.q;
      // Shared mode: every device is accepted, none pending or rejected.
      const none = shared && filter.admission !== undefined && filter.admission !== "accepted";
      if (shared) delete filter.admission;
      // The seen filter is relative to now: its key moves with the minute.
      const minute = filter.seen && filter.seen !== "never" ? Math.floor(Date.now() / 60_000) : "";
      const key = JSON.stringify([page, rowsPerPage, sort, order, filter, minute, none]);
      const make = async () => {
        if (none) return { data: [], total: 0, exact: true, page, per_page: rowsPerPage };
        const { data, total, exact } = await devices.view({ filter, sort, order }, page, rowsPerPage, product);
        return { data: data.map(view), total, exact: exact ?? true, page, per_page: rowsPerPage };
      };
      const cacheable = filter.firmware === undefined && sort !== "productType";
      return cacheable ? await pages.get(key, make, version) : JSON.stringify(await make());
    },

    async get(deviceId: string): Promise<Device> {
      const found = await devices.get(deviceId);
      if (!found) throw notFound(noDevice(deviceId));
      return view(found);
    },

    async firmwareInEffect(deviceId: string) {
      const inEffect = await ctx.stores.deviceApi.firmwareInEffect(deviceId, product);
      if (!inEffect) throw notFound(noDevice(deviceId));
      return inEffect;
    },

    patch: async (deviceId: string, changes: Parameters<typeof devices.patch>[1], ifMatch: IfMatch | undefined) =>
      view(await devices.patch(deviceId, changes, ifMatch)),

    remove: (deviceId: string, ifMatch: IfMatch | undefined) => devices.remove(deviceId, ifMatch),

    preauthorize: async (deviceId: string) => view(await devices.preauthorize(deviceId)),

    async preauthorizeMany(deviceIds: string[]): Promise<PreauthorizeManyResult> {
      const result = await devices.preauthorizeMany(deviceIds);
      return shared ? { ...result, existing: result.existing.map((e) => ({ ...e, admission: "accepted" })) } : result;
    },

    admit,

    /** A bulk change in one transaction: the named devices, or all that match the filter. */
    async bulk({ deviceIds, filter, set }: z.output<typeof DeviceBulk>): Promise<{ updated: number }> {
      const visible = filter === null ? null : sharedModeFilter(ctx, filter);
      if (filter !== null && visible === null) return { updated: 0 };
      const target = deviceIds !== null ? { deviceIds } : { filter: visible! };
      const { updated } = await devices.bulk(target, set, product);
      return { updated };
    },

    async overview() {
      const overview = await devices.overview(product);
      if (shared) overview.devices.pending = 0;
      return overview;
    },

    admissionCounts: () => admissionCounts(ctx),
  };
}
