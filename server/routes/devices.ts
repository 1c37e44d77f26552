import { Hono } from "hono";
import { DeviceId, DeviceListQuery, DevicePatch } from "../../shared/schemas/device.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noDevice } from "../db/rules/devices.ts";
import { badRequest, notFound } from "../errors.ts";
import { ReadCache } from "../lib/read_cache.ts";
import { jsonBody, parse, query } from "../validate.ts";

const deviceIdParam = (value: string) => parse(DeviceId, value, "deviceId");

/** CONTRACT §5: operator routes for devices (devices are created by the device API check-in). */
export function devicesRoutes(ctx: AppContext) {
  const { devices } = ctx.stores;
  const pages = new ReadCache(() => devices.version());
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      const { page, rowsPerPage, q } = query(c, DeviceListQuery);
      const search = q?.trim();
      const json = await pages.get(`${page}|${rowsPerPage}|${search ?? ""}`, async () => {
        const { data, total } = await devices.list(page, rowsPerPage, search);
        return { data, total, page, per_page: rowsPerPage };
      });
      return c.body(json, 200, { "Content-Type": "application/json" });
    })
    .get("/:deviceId", async (c) => {
      const deviceId = deviceIdParam(c.req.param("deviceId"));
      const device = await devices.get(deviceId);
      if (!device) throw notFound(noDevice(deviceId));
      return c.json(device);
    })
    .patch("/:deviceId", async (c) => {
      const deviceId = deviceIdParam(c.req.param("deviceId"));
      const { deviceId: bodyId, ...changes } = await jsonBody(c, DevicePatch);
      if (bodyId !== deviceId) {
        throw badRequest(`deviceId: the body's deviceId ${bodyId} differs from the path's ${deviceId}.`);
      }
      return c.json(await devices.patch(deviceId, changes));
    })
    .delete("/:deviceId", async (c) => {
      await devices.remove(deviceIdParam(c.req.param("deviceId")));
      return c.body(null, 204);
    });
}
