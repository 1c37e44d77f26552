import * as metrics from "../metrics.ts";
import { routes } from "../../shared/routes/mod.ts";
import { firmwareContentType } from "../../shared/schemas/firmware.ts";
import { deviceAs } from "../auth/acting_as.ts";
import type { VersionInfo } from "../../shared/schemas/device.ts";
import type { PolledDevice } from "../db/stores.ts";
import { deviceTokenHash, newDeviceToken } from "../auth/device_tokens.ts";
import { runAs } from "../db/audit_context.ts";
import type { AppContext } from "../context.ts";
import { conflict, forbidden, notFound } from "../errors.ts";
import { firmwareDownload } from "../lib/firmware_download.ts";
import { type Api, mount, mountHead } from "../mount.ts";

const servedToDevices = metrics.firmwareBytesServed.labels({ to: "devices" });

const unknownDevice = (id: string) => notFound(`No device with deviceId ${id}; it must check in first.`);

/**
 * docs/REQUIREMENTS.md §6: what the fleet calls, under /api/v1/device/{deviceId}/ (each behind the device guard:
 * auth/device_auth.ts).
 */
export function deviceApiRoutes(api: Api, ctx: AppContext) {
  const product = ctx.config.PRODUCT;
  const { deviceApi } = ctx.stores;
  const tokens = ctx.config.DEVICE_AUTH === "token";
  const auto = ctx.config.DEVICE_ADMISSION === "auto";

  mount(api, routes.deviceEnroll, async (c, { params: { deviceId: id }, body }) => {
    if (!tokens) {
      throw conflict("Enrolment is off: this server runs with DEVICE_AUTH=shared (check in with the API key).");
    }
    const token = newDeviceToken();
    const as = deviceAs(c, id, ctx.config.trustProxy);
    const outcome = await runAs(as, () => deviceApi.enroll(id, body.versionInfo, deviceTokenHash(token), auto));
    switch (outcome) {
      case "pending":
        return c.json({ status: "pending" as const }, 202);
      case "issued":
        metrics.enrolments.inc();
        return c.json({ token }, 201, { "Cache-Control": "no-store" });
      case "rejected":
        throw forbidden(`Device ${id} was rejected by an operator; it cannot enrol.`);
      case "has_token":
        throw conflict(
          `Device ${id} already holds a token; an operator must reset its credentials before it can enrol again.`,
        );
    }
  });
  // The answer is exactly the state this check-in left: the store reads it in the check-in's transaction. Run as the
  // device (the audit context): by runAs here, by the lean guard's admission below Hono.
  const checkin = async (id: string, versionInfo: VersionInfo, polled: PolledDevice | null | undefined) => {
    const answer = tokens
      ? await deviceApi.checkinKnown(id, versionInfo, product, polled ?? undefined)
      : await deviceApi.checkin(id, versionInfo, product, polled);
    metrics.checkins.inc();
    return answer;
  };
  mount(
    api,
    routes.deviceCheckin,
    async (c, { params: { deviceId: id }, body }) => {
      const as = deviceAs(c, id, ctx.config.trustProxy);
      return c.json(await runAs(as, () => checkin(id, body.versionInfo, c.get("polledDevice"))));
    },
    {
      // Below Hono's context when its guard admits it (server/lean_routes.ts): the hottest route of a fleet.
      lean: (_req, { params: { deviceId: id }, body }, { polled }) => checkin(id, body.versionInfo, polled),
    },
  );
  mount(api, routes.deviceConfig, async (c, { params: { deviceId: id } }) => {
    const config = await deviceApi.config(id, product);
    if (!config) throw unknownDevice(id);
    return c.json(config);
  });
  mount(api, routes.deviceStatus, async (c, { params: { deviceId: id }, body }) => {
    await deviceApi.status(id, body, product);
    metrics.statusReports.labels({ state: body.state }).inc();
    return c.body(null, 204);
  });
  // HEAD too: Hono answers it with this route.
  mountHead(api, routes.deviceFirmwareHead);
  mount(api, routes.deviceFirmware, async (c, { params: { deviceId: id } }) => {
    const firmware = await deviceApi.firmware(id, product);
    if (firmware === undefined) throw unknownDevice(id);
    if (firmware === null) {
      throw notFound(`No firmware applies to device ${id}: none is assigned and no default is set.`);
    }

    return await firmwareDownload(c, firmware, {
      files: ctx.files,
      redirect: ctx.config.FIRMWARE_DOWNLOAD === "redirect"
        ? { ttlSeconds: ctx.config.FIRMWARE_URL_TTL_SECONDS, onRedirect: () => metrics.firmwareRedirects.inc() }
        : null,
      contentType: firmwareContentType(firmware.name),
      counted: (body) => metrics.countedBody(body, servedToDevices),
    });
  });
}
