import { Hono } from "hono";
import { DeviceTypePatch } from "../../shared/schemas/device_type.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { badRequest } from "../errors.ts";
import { jsonBody } from "../validate.ts";

export function deviceTypesRoutes(ctx: AppContext) {
  const { deviceTypes } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await deviceTypes.list()))
    .patch("/:id", async (c) => {
      const id = c.req.param("id");
      const body = await jsonBody(c, DeviceTypePatch);
      if (body._id !== id) throw badRequest(`_id: must equal the device type id in the path (${id}).`);
      const updated = await deviceTypes.setDefaultFirmware(id, body.defaultFirmware);
      ctx.log(`Device type ${updated.name}: default firmware ${updated.defaultFirmware ?? "unset"}.`);
      return c.json(updated);
    });
}
