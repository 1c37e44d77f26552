import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noDevice } from "../db/rules/devices.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import type { Admission, AdmissionSummary, Device } from "../../shared/schemas/device.ts";
import type { AdmissionAction } from "../db/rules/admission.ts";
import type { DeviceStore } from "../db/stores.ts";
import { ReadCache } from "../lib/read_cache.ts";
import { bodyOf, ifMatchOf, paramsOf, queryOf } from "../route_table.ts";
import { filterOf } from "./fleet.ts";

/**
 * CONTRACT §11: with DEVICE_AUTH=shared every device is "accepted" and holds no token of its own, whatever its row
 * says (a server switched back from token mode keeps the rows for a later switch).
 */
export function deviceView(ctx: AppContext): (device: Device) => Device {
  return ctx.config.DEVICE_AUTH === "token"
    ? (device) => device
    : (device) => ({ ...device, admission: "accepted", credentialsIssuedAt: null });
}

/** Devices by admission as the API shows them (all accepted with DEVICE_AUTH=shared). */
export async function admissionCounts(ctx: AppContext, devices: DeviceStore): Promise<Record<Admission, number>> {
  const counts = await devices.admissionCounts();
  if (ctx.config.DEVICE_AUTH === "token") return counts;
  return { pending: 0, accepted: counts.pending + counts.accepted + counts.rejected, rejected: 0 };
}

/** GET device_admission: the mode and the counts (the console's admission filter shows the pending count). */
export function deviceAdmissionRoutes(ctx: AppContext) {
  return new Hono<AppEnv>().get("/", async (c) => {
    const summary: AdmissionSummary = {
      auth: ctx.config.DEVICE_AUTH,
      admission: ctx.config.DEVICE_ADMISSION,
      counts: await admissionCounts(ctx, ctx.stores.devices),
    };
    return c.json(summary);
  });
}

/** Operator routes for devices (devices are created by the device API check-in, enrolment or pre-authorization). */
export function devicesRoutes(ctx: AppContext) {
  const { devices } = ctx.stores;
  const pages = new ReadCache(() => devices.version());
  const product = ctx.config.PRODUCT;
  const view = deviceView(ctx);
  const tokens = ctx.config.DEVICE_AUTH === "token";
  const admit = (action: AdmissionAction) => async (deviceId: string) => {
    if (!tokens) {
      if (!(await devices.get(deviceId))) throw notFound(noDevice(deviceId));
      throw conflict("Device admission is off: this server runs with DEVICE_AUTH=shared (docs/OPERATIONS.md).");
    }
    return await devices.admit(deviceId, action);
  };
  const accept = admit("accept");
  const reject = admit("reject");
  const reset = admit("reset_credentials");
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      const { page, rowsPerPage, sort, order, ...rest } = queryOf(routes.listDevices, c);
      const filter = filterOf(rest);
      if (filter.q !== undefined) filter.q = filter.q.trim() || undefined;
      if (filter.q === undefined) delete filter.q;
      // Shared mode: every device is accepted, none pending or rejected (CONTRACT §11).
      const none = !tokens && filter.admission !== undefined && filter.admission !== "accepted";
      if (!tokens) delete filter.admission;
      // The seen filter is relative to now: its key moves with the minute.
      const minute = filter.seen && filter.seen !== "never" ? Math.floor(Date.now() / 60_000) : "";
      const key = JSON.stringify([page, rowsPerPage, sort, order, filter, minute, none]);
      const make = async () => {
        if (none) return { data: [], total: 0, exact: true, page, per_page: rowsPerPage };
        const { data, total, exact } = await devices.view({ filter, sort, order }, page, rowsPerPage, product);
        return { data: data.map(view), total, exact: exact ?? true, page, per_page: rowsPerPage };
      };
      // The cache is versioned by the devices' writes only: views that also depend on the default firmware or on
      // product type names are made fresh.
      const cacheable = filter.firmware === undefined && sort !== "productType";
      const json = cacheable ? await pages.get(key, make) : JSON.stringify(await make());
      return c.body(json, 200, { "Content-Type": "application/json" });
    })
    .post("/", async (c) => {
      const { deviceId } = await bodyOf(routes.preauthorizeDevice, c);
      const device = view(await devices.preauthorize(deviceId));
      return c.json(device, 201, { ETag: device.etag });
    })
    .post("/preauthorize", async (c) => {
      const { deviceIds } = await bodyOf(routes.preauthorizeDevices, c);
      const result = await devices.preauthorizeMany(deviceIds);
      return c.json(
        tokens ? result : { ...result, existing: result.existing.map((e) => ({ ...e, admission: "accepted" })) },
      );
    })
    .post("/:deviceId/accept", async (c) => {
      const device = await accept(paramsOf(routes.acceptDevice, c).deviceId);
      return c.json(device, 200, { ETag: device.etag });
    })
    .post("/:deviceId/reject", async (c) => {
      const device = await reject(paramsOf(routes.rejectDevice, c).deviceId);
      return c.json(device, 200, { ETag: device.etag });
    })
    .post("/:deviceId/reset_credentials", async (c) => {
      const device = await reset(paramsOf(routes.resetDeviceCredentials, c).deviceId);
      return c.json(device, 200, { ETag: device.etag });
    })
    .get("/:deviceId/firmware", async (c) => {
      const { deviceId } = paramsOf(routes.firmwareInEffect, c);
      const inEffect = await ctx.stores.deviceApi.firmwareInEffect(deviceId, product);
      if (!inEffect) throw notFound(noDevice(deviceId));
      return c.json(inEffect);
    })
    .get("/:deviceId", async (c) => {
      const { deviceId } = paramsOf(routes.getDevice, c);
      const found = await devices.get(deviceId);
      if (!found) throw notFound(noDevice(deviceId));
      const device = view(found);
      return c.json(device, 200, { ETag: device.etag });
    })
    .patch("/:deviceId", async (c) => {
      const { deviceId } = paramsOf(routes.patchDevice, c);
      const ifMatch = ifMatchOf(routes.patchDevice, c);
      const { deviceId: bodyId, ...changes } = await bodyOf(routes.patchDevice, c);
      if (bodyId !== deviceId) {
        throw badRequest(`deviceId: the body's deviceId ${bodyId} differs from the path's ${deviceId}.`);
      }
      const device = view(await devices.patch(deviceId, changes, ifMatch));
      return c.json(device, 200, { ETag: device.etag });
    })
    .delete("/:deviceId", async (c) => {
      const { deviceId } = paramsOf(routes.deleteDevice, c);
      await devices.remove(deviceId, ifMatchOf(routes.deleteDevice, c));
      return c.body(null, 204);
    });
}
