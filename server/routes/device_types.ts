import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { badRequest } from "../errors.ts";
import { bodyOf, paramsOf } from "../route_table.ts";

export function deviceTypesRoutes(ctx: AppContext) {
  const { deviceTypes } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await deviceTypes.list()))
    .patch("/:id", async (c) => {
      const { id } = paramsOf(routes.patchDeviceType, c);
      const body = await bodyOf(routes.patchDeviceType, c);
      if (body._id !== id) throw badRequest(`_id: must equal the device type id in the path (${id}).`);
      const updated = await deviceTypes.setDefaultFirmware(id, body.defaultFirmware);
      ctx.log(`Device type ${updated.name}: default firmware ${updated.defaultFirmware ?? "unset"}.`);
      return c.json(updated);
    });
}
