import { routes } from "../../shared/routes/mod.ts";
import type { AdmissionSummary } from "../../shared/schemas/device.ts";
import type { AppContext } from "../context.ts";
import { badRequest } from "../errors.ts";
import { type Api, JsonText, mount } from "../mount.ts";
import type { DevicesService } from "../services/devices.ts";

/** Operator routes for devices (devices are created by the device API check-in, enrolment or pre-authorization). */
export function devicesRoutes(api: Api, ctx: AppContext, devices: DevicesService) {
  // Answered below Hono when the lean operator guard admits the request (server/lean_routes.ts): the console's and the
  // CLI's most frequent read.
  mount(api, routes.listDevices, async (c, { query }) => {
    return c.body(await devices.page(query, c.get("devicesVersion")), 200, { "Content-Type": "application/json" });
  }, { lean: async (_req, { query }, { devicesVersion }) => new JsonText(await devices.page(query, devicesVersion)) });
  mount(api, routes.preauthorizeDevice, async (c, { body }) => {
    const device = await devices.preauthorize(body.deviceId);
    return c.json(device, 201, { ETag: device.etag });
  });
  mount(api, routes.preauthorizeDevices, async (c, { body }) => c.json(await devices.preauthorizeMany(body.deviceIds)));
  for (
    const [route, action] of [
      [routes.acceptDevice, "accept"],
      [routes.rejectDevice, "reject"],
      [routes.resetDeviceCredentials, "reset_credentials"],
    ] as const
  ) {
    mount(api, route, async (c, { params }) => {
      const device = await devices.admit(params.deviceId, action);
      return c.json(device, 200, { ETag: device.etag });
    });
  }
  mount(api, routes.firmwareInEffect, async (c, { params }) => c.json(await devices.firmwareInEffect(params.deviceId)));
  mount(api, routes.getDevice, async (c, { params }) => {
    const device = await devices.get(params.deviceId);
    return c.json(device, 200, { ETag: device.etag });
  });
  mount(api, routes.patchDevice, async (c, { params: { deviceId }, body, ifMatch }) => {
    const { deviceId: bodyId, ...changes } = body;
    if (bodyId !== deviceId) {
      throw badRequest(`deviceId: the body's deviceId ${bodyId} differs from the path's ${deviceId}.`);
    }
    const device = await devices.patch(deviceId, changes, ifMatch);
    return c.json(device, 200, { ETag: device.etag });
  });
  mount(api, routes.deleteDevice, async (c, { params, ifMatch }) => {
    await devices.remove(params.deviceId, ifMatch);
    return c.body(null, 204);
  });
  // The console's admission filter shows the pending count.
  mount(api, routes.deviceAdmission, async (c) => {
    const summary: AdmissionSummary = {
      auth: ctx.config.DEVICE_AUTH,
      admission: ctx.config.DEVICE_ADMISSION,
      counts: await devices.admissionCounts(),
    };
    return c.json(summary);
  });
}
