import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noDevice } from "../db/rules/devices.ts";
import { badRequest, notFound } from "../errors.ts";
import { ReadCache } from "../lib/read_cache.ts";
import { bodyOf, ifMatchOf, paramsOf, queryOf } from "../route_table.ts";

/** Operator routes for devices (devices are created by the device API check-in). */
export function devicesRoutes(ctx: AppContext) {
  const { devices } = ctx.stores;
  const pages = new ReadCache(() => devices.version());
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      const { page, rowsPerPage, q } = queryOf(routes.listDevices, c);
      const search = q?.trim();
      const json = await pages.get(`${page}|${rowsPerPage}|${search ?? ""}`, async () => {
        const { data, total } = await devices.list(page, rowsPerPage, search);
        return { data, total, page, per_page: rowsPerPage };
      });
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
