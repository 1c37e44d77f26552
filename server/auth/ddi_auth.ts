/**
 * The guard of hawkBit DDI's routes (auth "ddi" in the route table; docs/REQUIREMENTS.md §18), by DEVICE_AUTH:
 * - token: `Authorization: TargetToken <device token>`, valid only on its own controllerId's paths (downloads too);
 * - shared: `Authorization: GatewayToken <DEVICE_API_KEY>`, any controllerId.
 * Anything else is 401. Failures go through the device API's throttle (auth/device_throttle.ts), counted as §6's are:
 * a token per device id and address, the shared key per address. A tenant other than DDI_TENANT (any case) is 404.
 */
import type { MiddlewareHandler } from "hono";
import type { LeanGuard } from "../mount.ts";
import { ddiRoutes } from "../../shared/routes/mod.ts";
import type { Route } from "../../shared/routes/route.ts";
import { DeviceId } from "../../shared/schemas/device.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { ApiHttpError, notFound } from "../errors.ts";
import { parse } from "../validate.ts";
import { clientAddress, requestAddress } from "./client_address.ts";
import { deviceTokenMatches } from "./device_tokens.ts";
import { type DeviceAuthThrottle, requireDeviceCredential } from "./device_throttle.ts";
import { secretMatches } from "./bearer_match.ts";
import { actingAs, deviceActor } from "./acting_as.ts";

/** The credential of an Authorization header of `scheme` (TargetToken, GatewayToken), or null. */
function credentialOf(header: string | undefined, scheme: string): string | null {
  const m = /^([A-Za-z]+) +([^\s]+)$/.exec(header ?? "");
  return m && m[1].toLowerCase() === scheme.toLowerCase() ? m[2] : null;
}

/** The guard of each DDI route; a poll's token is read with what its quiet answer reads (deviceApi.polledDevice). */
export function ddiGuard(ctx: AppContext, throttle: DeviceAuthThrottle): (route: Route) => MiddlewareHandler<AppEnv> {
  const other = ddiGuardOf(ctx, throttle, false);
  const poll = ddiGuardOf(ctx, throttle, true);
  return (route) => route === ddiRoutes.ddiPoll ? poll : other;
}

function ddiGuardOf(ctx: AppContext, throttle: DeviceAuthThrottle, polls: boolean): MiddlewareHandler<AppEnv> {
  const tenant = ctx.config.DDI_TENANT.toLowerCase();
  const key = ctx.config.DEVICE_API_KEY;
  const { deviceApi } = ctx.stores;
  const tokens = ctx.config.DEVICE_AUTH === "token";

  return async (c, next) => {
    if ((c.req.param("tenant") ?? "").toLowerCase() !== tenant) {
      throw notFound(`No such tenant: this server's DDI tenant is ${ctx.config.DDI_TENANT}.`);
    }
    const id = parse(DeviceId, c.req.param("controllerId") ?? "", "controllerId");
    const address = clientAddress(c, ctx.config.trustProxy);
    const header = c.req.header("authorization");
    if (tokens) {
      await requireDeviceCredential(
        c,
        throttle,
        { address, deviceId: id },
        async () => {
          const token = credentialOf(header, "TargetToken");
          if (token === null) return false;
          if (!polls) return deviceTokenMatches(token, (await deviceApi.credentials(id))?.tokenHash ?? null);
          const polled = await deviceApi.polledDevice(id);
          if (!deviceTokenMatches(token, polled?.token_hash ?? null)) return false;
          c.set("polledDevice", polled!);
          return true;
        },
        `A valid token of device ${id} is required (Authorization: TargetToken <device token>).`,
      );
    } else {
      if (!key) throw new ApiHttpError(503, "unavailable", "DDI is disabled: the server has no DEVICE_API_KEY.");
      await requireDeviceCredential(
        c,
        throttle,
        { address },
        () => {
          const given = credentialOf(header, "GatewayToken");
          return given !== null && secretMatches(given, key);
        },
        "A valid gateway token is required (Authorization: GatewayToken <DEVICE_API_KEY>).",
      );
    }
    await next();
  };
}

/**
 * The lean form of the DDI poll's guard (server/mount.ts): admits exactly what the guard admits without a failure to
 * count — this server's tenant, a well-formed controllerId, and the right gateway token (shared) or (token) a pair not
 * blocked whose TargetToken matches, with the row read with it; null otherwise (the guard then answers).
 */
export function ddiLeanGuard(ctx: AppContext, throttle: DeviceAuthThrottle): (route: Route) => LeanGuard | undefined {
  const tenant = ctx.config.DDI_TENANT.toLowerCase();
  const key = ctx.config.DEVICE_API_KEY;
  const { deviceApi } = ctx.stores;
  const tokens = ctx.config.DEVICE_AUTH === "token";
  const trustProxy = ctx.config.trustProxy;
  const poll: LeanGuard = async ({ raw, info, params }) => {
    const id = params.controllerId;
    if ((params.tenant ?? "").toLowerCase() !== tenant || id === undefined || !DeviceId.safeParse(id).success) {
      return null;
    }
    const header = raw.headers.get("authorization") ?? undefined;
    const as = () => actingAs(deviceActor(id), raw, info, trustProxy);
    if (!tokens) {
      const given = credentialOf(header, "GatewayToken");
      if (!key || given === null || !secretMatches(given, key)) return null;
      // Where a poll's read waits, the row is read before the handler's scope (none yet: a first poll).
      return deviceApi.pollsWait ? { read: () => deviceApi.polledDevice(id), as: as() } : { as: as() };
    }
    if (throttle.blockedMs({ address: requestAddress(raw, info, trustProxy), deviceId: id }) > 0) return null;
    const token = credentialOf(header, "TargetToken");
    if (token === null) return null;
    const polled = await deviceApi.polledDevice(id);
    return polled && deviceTokenMatches(token, polled.token_hash) ? { polled, as: as() } : null;
  };
  return (route) => route === ddiRoutes.ddiPoll ? poll : undefined;
}
