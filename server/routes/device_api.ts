import * as metrics from "../metrics.ts";
import { Hono, type MiddlewareHandler } from "hono";
import { DeviceId } from "../../shared/schemas/device.ts";
import { CheckinBody, EnrollBody } from "../../shared/schemas/device_api.ts";
import { StatusBody } from "../../shared/schemas/rollout.ts";
import { bearerMatches } from "../auth/bearer_match.ts";
import { clientAddress } from "../auth/client_address.ts";
import { deviceTokenHash, deviceTokenMatches, newDeviceToken } from "../auth/device_tokens.ts";
import { DeviceAuthThrottle, requireDeviceCredential } from "../auth/device_throttle.ts";
import { bearer } from "../auth/middleware.ts";
import { runAs } from "../db/audit_context.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { ApiHttpError, conflict, forbidden, notFound } from "../errors.ts";
import { etagMatches, parseRange } from "../lib/byte_range.ts";
import { attachmentDisposition, openFirmwareFile } from "../lib/firmware_file.ts";
import { jsonBody, parse } from "../validate.ts";

const noKey = () =>
  new ApiHttpError(503, "unavailable", "The device API is disabled: the server has no DEVICE_API_KEY.");

/**
 * DEVICE_AUTH=shared: DEVICE_API_KEY as a bearer token, compared in constant time; 503 when no key is configured.
 * Wrong keys are throttled per address, the right key always goes through (auth/device_throttle.ts).
 */
function requireDeviceKey(ctx: AppContext, throttle: DeviceAuthThrottle): MiddlewareHandler<AppEnv> {
  const expected = ctx.config.DEVICE_API_KEY;
  return async (c, next) => {
    if (!expected) throw noKey();
    await requireDeviceCredential(
      c,
      throttle,
      { address: clientAddress(c, ctx.config.trustProxy) },
      () => bearerMatches(c.req.header("authorization"), expected),
      "A valid device API key is required (Authorization: Bearer <key>).",
    );
    await next();
  };
}

/**
 * DEVICE_AUTH=token (CONTRACT §11): `enroll` takes the enrolment key (DEVICE_API_KEY; 503 without one), every other
 * call the device's own token, valid only on its own deviceId's paths. Failures are throttled per device id and
 * address (a token), or per address (the enrolment key, shared by the fleet): a broken device never locks out the
 * others behind its address (CONTRACT §19).
 */
function requireDeviceToken(ctx: AppContext, throttle: DeviceAuthThrottle): MiddlewareHandler<AppEnv> {
  const enrolmentKey = ctx.config.DEVICE_API_KEY;
  const { deviceApi } = ctx.stores;
  return async (c, next) => {
    const address = clientAddress(c, ctx.config.trustProxy);
    const id = parse(DeviceId, c.req.param("deviceId") ?? "", "deviceId");
    if (c.req.path.endsWith("/enroll")) {
      if (!enrolmentKey) throw noKey();
      await requireDeviceCredential(
        c,
        throttle,
        { address },
        () => bearerMatches(c.req.header("authorization"), enrolmentKey),
        "Enrolment needs the enrolment key (Authorization: Bearer <DEVICE_API_KEY>).",
      );
    } else {
      await requireDeviceCredential(
        c,
        throttle,
        { address, deviceId: id },
        async () => {
          const token = bearer(c.req.header("authorization"));
          if (token === null) return false;
          return deviceTokenMatches(token, (await deviceApi.credentials(id))?.tokenHash ?? null);
        },
        `A valid token of device ${id} is required (Authorization: Bearer <device token>).`,
      );
    }
    await next();
  };
}

const servedToDevices = metrics.firmwareBytesServed.labels({ to: "devices" });

const unknownDevice = (id: string) => notFound(`No device with deviceId ${id}; it must check in first.`);

/** CONTRACT §6: what the fleet calls, under /api/v1/device/{deviceId}/. */
export function deviceApiRoutes(ctx: AppContext) {
  const product = ctx.config.PRODUCT;
  const { deviceApi } = ctx.stores;
  const deviceId = (raw: string) => parse(DeviceId, raw, "deviceId");
  const tokens = ctx.config.DEVICE_AUTH === "token";
  const auto = ctx.config.DEVICE_ADMISSION === "auto";
  const throttle = new DeviceAuthThrottle(ctx.config.DEVICE_AUTH_MAX_FAILURES);

  return new Hono<AppEnv>()
    // Shared mode exactly as before (every path behind the key); token mode needs the path's deviceId.
    .use(tokens ? "/:deviceId/*" : "*", tokens ? requireDeviceToken(ctx, throttle) : requireDeviceKey(ctx, throttle))
    .post("/:deviceId/enroll", async (c) => {
      const id = deviceId(c.req.param("deviceId"));
      const body = await jsonBody(c, EnrollBody);
      if (!tokens) {
        throw conflict("Enrolment is off: this server runs with DEVICE_AUTH=shared (check in with the API key).");
      }
      const token = newDeviceToken();
      const as = { actor: { type: "device" as const, id, name: id }, ip: clientAddress(c, ctx.config.trustProxy) };
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
    })
    .post("/:deviceId/checkin", async (c) => {
      const id = deviceId(c.req.param("deviceId"));
      const body = await jsonBody(c, CheckinBody);
      // The answer is exactly the state this check-in left: the store reads it in the check-in's transaction.
      const as = { actor: { type: "device" as const, id, name: id }, ip: clientAddress(c, ctx.config.trustProxy) };
      const answer = await runAs(
        as,
        () =>
          tokens
            ? deviceApi.checkinKnown(id, body.versionInfo, product)
            : deviceApi.checkin(id, body.versionInfo, product),
      );
      metrics.checkins.inc();
      return c.json(answer);
    })
    .get("/:deviceId/config", async (c) => {
      const id = deviceId(c.req.param("deviceId"));
      const config = await deviceApi.config(id, product);
      if (!config) throw unknownDevice(id);
      return c.json(config);
    })
    .post("/:deviceId/status", async (c) => {
      const id = deviceId(c.req.param("deviceId"));
      const body = await jsonBody(c, StatusBody);
      await deviceApi.status(id, body, product);
      metrics.statusReports.labels({ state: body.state }).inc();
      return c.body(null, 204);
    })
    .get("/:deviceId/firmware", async (c) => {
      const id = deviceId(c.req.param("deviceId"));
      const firmware = await deviceApi.firmware(id, product);
      if (firmware === undefined) throw unknownDevice(id);
      if (firmware === null) {
        throw notFound(`No firmware applies to device ${id}: none is assigned and no default is set.`);
      }

      const etag = `"${firmware.sha256}"`;
      const common = { "ETag": etag, "Accept-Ranges": "bytes", "Cache-Control": "no-cache" };
      if (etagMatches(c.req.header("if-none-match"), etag)) return c.body(null, 304, common);

      if (ctx.config.FIRMWARE_DOWNLOAD === "redirect") {
        // The bytes come from the bucket (or its CDN) through a presigned URL, which honours Range itself.
        const url = await ctx.files.downloadUrl(firmware._id, firmware.name, ctx.config.FIRMWARE_URL_TTL_SECONDS);
        if (url) {
          metrics.firmwareRedirects.inc();
          return c.body(null, 302, { ...common, "Cache-Control": "no-store", Location: url });
        }
      }
      const size = firmware.size;
      const headers: Record<string, string> = {
        ...common,
        "Content-Type": "application/x-xz",
        "Content-Disposition": attachmentDisposition(firmware.name),
      };

      const ifRange = c.req.header("if-range");
      const range = ifRange !== undefined && ifRange.trim() !== etag ? null : parseRange(c.req.header("range"), size);
      if (range === "unsatisfiable") {
        return c.json(
          {
            error: "range_not_satisfiable",
            msg: `The requested range is not satisfiable; the firmware has ${size} bytes.`,
          },
          416,
          { ...common, "Content-Range": `bytes */${size}` },
        );
      }
      const { start, end } = range ?? { start: 0, end: size - 1 };
      headers["Content-Length"] = String(end - start + 1);
      if (range) headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
      // HEAD too: a firmware whose file is missing is 404 either way.
      const body = await openFirmwareFile(ctx.files, firmware, { start, end });
      if (c.req.method === "HEAD") {
        await body.cancel();
        return c.body(null, range ? 206 : 200, headers);
      }
      return c.body(metrics.countedBody(body, servedToDevices), range ? 206 : 200, headers);
    });
}
