import { Hono } from "hono";
import { DeviceTypePatch } from "../../shared/schemas/device_type.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { getDeviceType, listDeviceTypes, setDefaultFirmware } from "../db/device_types.ts";
import { getFirmware } from "../db/firmwares.ts";
import { transaction } from "../db/mod.ts";
import { badRequest, notFound } from "../errors.ts";
import { jsonBody } from "../validate.ts";

export function deviceTypesRoutes(ctx: AppContext) {
  const { db } = ctx;
  return new Hono<AppEnv>()
    .get("/", (c) => c.json(listDeviceTypes(db)))
    .patch("/:id", async (c) => {
      const id = c.req.param("id");
      const body = await jsonBody(c, DeviceTypePatch);
      if (body._id !== id) throw badRequest(`_id: must equal the device type id in the path (${id}).`);
      const updated = transaction(db, () => {
        if (!getDeviceType(db, id)) throw notFound(`No device type with id ${id}.`);
        if (body.defaultFirmware !== null && !getFirmware(db, body.defaultFirmware)) {
          throw badRequest(`defaultFirmware: no firmware with id ${body.defaultFirmware}.`);
        }
        setDefaultFirmware(db, id, body.defaultFirmware);
        return getDeviceType(db, id)!;
      });
      ctx.log(`Device type ${updated.name}: default firmware ${updated.defaultFirmware ?? "unset"}.`);
      return c.json(updated);
    });
}
