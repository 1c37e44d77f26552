import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noDevice } from "../db/rules/devices.ts";
import { badRequest, notFound } from "../errors.ts";
import { ReadCache } from "../lib/read_cache.ts";
import { bodyOf, ifMatchOf, paramsOf, queryOf } from "../route_table.ts";
import { filterOf } from "./fleet.ts";

/** Operator routes for devices (devices are created by the device API check-in). */
export function devicesRoutes(ctx: AppContext) {
  const { devices } = ctx.stores;
  const pages = new ReadCache(() => devices.version());
  const product = ctx.config.PRODUCT;
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      const { page, rowsPerPage, sort, order, ...rest } = queryOf(routes.listDevices, c);
      const filter = filterOf(rest);
      if (filter.q !== undefined) filter.q = filter.q.trim() || undefined;
      if (filter.q === undefined) delete filter.q;
      // The seen filter is relative to now: its key moves with the minute.
      const minute = filter.seen && filter.seen !== "never" ? Math.floor(Date.now() / 60_000) : "";
      const key = JSON.stringify([page, rowsPerPage, sort, order, filter, minute]);
      const make = async () => {
        const { data, total } = await devices.view({ filter, sort, order }, page, rowsPerPage, product);
        return { data, total, page, per_page: rowsPerPage };
      };
      // The cache is versioned by the devices' writes only: views that also depend on the default firmware or on
      // product type names are made fresh.
      const cacheable = filter.firmware === undefined && sort !== "productType";
      const json = cacheable ? await pages.get(key, make) : JSON.stringify(await make());
      return c.body(json, 200, { "Content-Type": "application/json" });
    })
    .get("/:deviceId", async (c) => {
      const { deviceId } = paramsOf(routes.getDevice, c);
      const device = await devices.get(deviceId);
      if (!device) throw notFound(noDevice(deviceId));
      return c.json(device, 200, { ETag: device.etag });
    })
    .patch("/:deviceId", async (c) => {
      const { deviceId } = paramsOf(routes.patchDevice, c);
      const ifMatch = ifMatchOf(routes.patchDevice, c);
      const { deviceId: bodyId, ...changes } = await bodyOf(routes.patchDevice, c);
      if (bodyId !== deviceId) {
        throw badRequest(`deviceId: the body's deviceId ${bodyId} differs from the path's ${deviceId}.`);
      }
      const device = await devices.patch(deviceId, changes, ifMatch);
      return c.json(device, 200, { ETag: device.etag });
    })
    .delete("/:deviceId", async (c) => {
      const { deviceId } = paramsOf(routes.deleteDevice, c);
      await devices.remove(deviceId, ifMatchOf(routes.deleteDevice, c));
      return c.body(null, 204);
    });
}
