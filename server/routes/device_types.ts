import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noDeviceType } from "../db/rules/device_types.ts";
import { badRequest, notFound } from "../errors.ts";
import { bodyOf, ifMatchOf, paramsOf } from "../route_table.ts";

export function deviceTypesRoutes(ctx: AppContext) {
  const { deviceTypes } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await deviceTypes.list()))
    .get("/:id", async (c) => {
      const { id } = paramsOf(routes.getDeviceType, c);
      const deviceType = await deviceTypes.get(id);
      if (!deviceType) throw notFound(noDeviceType(id));
      return c.json(deviceType, 200, { ETag: deviceType.etag });
    })
    .get("/:id/reach", async (c) => {
      const { id } = paramsOf(routes.deviceTypeReach, c);
      const reach = await deviceTypes.reach(id, ctx.config.PRODUCT);
      if (!reach) throw notFound(noDeviceType(id));
      return c.json(reach);
    })
    .patch("/:id", async (c) => {
      const { id } = paramsOf(routes.patchDeviceType, c);
      const ifMatch = ifMatchOf(routes.patchDeviceType, c);
      const body = await bodyOf(routes.patchDeviceType, c);
      if (body._id !== id) throw badRequest(`_id: must equal the device type id in the path (${id}).`);
      const updated = await deviceTypes.setDefaultFirmware(id, body.defaultFirmware, ifMatch);
      ctx.log(`Device type ${updated.name}: default firmware ${updated.defaultFirmware ?? "unset"}.`);
      return c.json(updated, 200, { ETag: updated.etag });
    });
}
