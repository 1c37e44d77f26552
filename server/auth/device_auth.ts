/**
 * The guard of the device API's routes (auth "device" in the route table), by DEVICE_AUTH:
 * - shared: DEVICE_API_KEY as a bearer token, compared in constant time;
 * - token (docs/REQUIREMENTS.md §11): `enroll` takes the enrolment key (DEVICE_API_KEY), every other call the device's own token,
 *   valid only on its own deviceId's paths.
 * 503 when a key is needed and none is configured. Failures are throttled (auth/device_throttle.ts): per device id and
 * address (a token), or per address (a key, shared by the fleet), so a broken device never locks out the others behind
 * its address (docs/REQUIREMENTS.md §19); the right credential always goes through.
 */
import type { MiddlewareHandler } from "hono";
import type { LeanGuard } from "../mount.ts";
import { routes } from "../../shared/routes/mod.ts";
import type { Route } from "../../shared/routes/route.ts";
import { DeviceId } from "../../shared/schemas/device.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { ApiHttpError } from "../errors.ts";
import { parse } from "../validate.ts";
import { bearerMatches } from "./bearer_match.ts";
import { clientAddress, requestAddress } from "./client_address.ts";
import { deviceTokenMatches } from "./device_tokens.ts";
import { DeviceAuthThrottle, requireDeviceCredential } from "./device_throttle.ts";
import { actingAs, deviceActor } from "./acting_as.ts";
import { bearer } from "./middleware.ts";

const noKey = () =>
  new ApiHttpError(503, "unavailable", "The device API is disabled: the server has no DEVICE_API_KEY.");

/** The guard of each device route (one throttle for them all). */
export function deviceGuard(
  ctx: AppContext,
  throttle = new DeviceAuthThrottle(ctx.config.DEVICE_AUTH_MAX_FAILURES),
): (route: Route) => MiddlewareHandler<AppEnv> {
  const key = ctx.config.DEVICE_API_KEY;
  const { deviceApi } = ctx.stores;

  const requireKey = (message: string): MiddlewareHandler<AppEnv> => async (c, next) => {
    if (!key) throw noKey();
    await requireDeviceCredential(
      c,
      throttle,
      { address: clientAddress(c, ctx.config.trustProxy) },
      () => bearerMatches(c.req.header("authorization"), key),
      message,
    );
    await next();
  };

  // A check-in's credential is read with what its quiet answer reads (one statement: deviceApi.polledDevice), and the
  // row handed to the check-in; other calls read the credential alone.
  const requireToken = (polls: boolean): MiddlewareHandler<AppEnv> => async (c, next) => {
    const address = clientAddress(c, ctx.config.trustProxy);
    const id = parse(DeviceId, c.req.param("deviceId") ?? "", "deviceId");
    await requireDeviceCredential(
      c,
      throttle,
      { address, deviceId: id },
      async () => {
        const token = bearer(c.req.header("authorization"));
        if (token === null) return false;
        if (!polls) return deviceTokenMatches(token, (await deviceApi.credentials(id))?.tokenHash ?? null);
        const polled = await deviceApi.polledDevice(id);
        if (!deviceTokenMatches(token, polled?.token_hash ?? null)) return false;
        c.set("polledDevice", polled!);
        return true;
      },
      `A valid token of device ${id} is required (Authorization: Bearer <device token>).`,
    );
    await next();
  };

  const shared = requireKey("A valid device API key is required (Authorization: Bearer <key>).");
  const enrolment = requireKey("Enrolment needs the enrolment key (Authorization: Bearer <DEVICE_API_KEY>).");
  if (ctx.config.DEVICE_AUTH !== "token") return () => shared;
  // The deviceId is checked before the key, as for every other device call (400 before 401).
  const enrol: MiddlewareHandler<AppEnv> = async (c, next) => {
    parse(DeviceId, c.req.param("deviceId") ?? "", "deviceId");
    await enrolment(c, next);
  };
  const token = requireToken(false);
  const checkin = requireToken(true);
  return (route) => route === routes.deviceEnroll ? enrol : route === routes.deviceCheckin ? checkin : token;
}

/**
 * The lean form of the §6 check-in's guard (server/mount.ts): admits exactly what the guard admits without a failure
 * to count — the right key (shared), or (token) a well-formed deviceId whose pair is not blocked and whose token
 * matches, with the row read with it; null otherwise (the guard then answers, counting the failure as ever).
 */
export function deviceLeanGuard(
  ctx: AppContext,
  throttle: DeviceAuthThrottle,
): (route: Route) => LeanGuard | undefined {
  const key = ctx.config.DEVICE_API_KEY;
  const { deviceApi } = ctx.stores;
  const trustProxy = ctx.config.trustProxy;
  if (ctx.config.DEVICE_AUTH !== "token") {
    // Where a poll's read waits, the row is read before the handler's scope (none yet: a first check-in); `read` runs
    // after the route's own check of the path parameters (server/mount.ts).
    const shared: LeanGuard = ({ raw, info, params }) => {
      const id = params.deviceId;
      if (id === undefined || !key || !bearerMatches(raw.headers.get("authorization") ?? undefined, key)) {
        return Promise.resolve(null);
      }
      const as = actingAs(deviceActor(id), raw, info, trustProxy);
      return Promise.resolve(deviceApi.pollsWait ? { read: () => deviceApi.polledDevice(id), as } : { as });
    };
    return () => shared;
  }
  const checkin: LeanGuard = async ({ raw, info, params }) => {
    const id = params.deviceId;
    if (id === undefined || !DeviceId.safeParse(id).success) return null;
    if (throttle.blockedMs({ address: requestAddress(raw, info, trustProxy), deviceId: id }) > 0) return null;
    const token = bearer(raw.headers.get("authorization") ?? undefined);
    if (token === null) return null;
    const polled = await deviceApi.polledDevice(id);
    return polled && deviceTokenMatches(token, polled.token_hash)
      ? { polled, as: actingAs(deviceActor(id), raw, info, trustProxy) }
      : null;
  };
  return (route) => route === routes.deviceCheckin ? checkin : undefined;
}
