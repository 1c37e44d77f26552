import { routes } from "../../shared/routes/mod.ts";
import type { AppContext } from "../context.ts";
import { noDeviceType } from "../db/rules/device_types.ts";
import { badRequest, notFound } from "../errors.ts";
import { type Api, mount } from "../mount.ts";

export function deviceTypesRoutes(api: Api, ctx: AppContext) {
  const { deviceTypes } = ctx.stores;
  mount(api, routes.listDeviceTypes, async (c) => c.json(await deviceTypes.list()));
  mount(api, routes.getDeviceType, async (c, { params: { id } }) => {
    const deviceType = await deviceTypes.get(id);
    if (!deviceType) throw notFound(noDeviceType(id));
    return c.json(deviceType, 200, { ETag: deviceType.etag });
  });
  mount(api, routes.deviceTypeReach, async (c, { params: { id } }) => {
    const reach = await deviceTypes.reach(id, ctx.config.PRODUCT);
    if (!reach) throw notFound(noDeviceType(id));
    return c.json(reach);
  });
  mount(api, routes.patchDeviceType, async (c, { params: { id }, body, ifMatch }) => {
    if (body._id !== id) throw badRequest(`_id: must equal the device type id in the path (${id}).`);
    const updated = await deviceTypes.setDefaultFirmware(id, body.defaultFirmware, ifMatch);
    ctx.log(`Device type ${updated.name}: default firmware ${updated.defaultFirmware ?? "unset"}.`);
    return c.json(updated, 200, { ETag: updated.etag });
  });
}
