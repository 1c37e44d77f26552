import { openApiDocument } from "../shared/openapi.ts";
import { RELEASE } from "../shared/version.ts";
import { ddiRouteList, routeList, routes } from "../shared/routes/mod.ts";
import { storageState } from "./storage_state.ts";
import * as metrics from "./metrics.ts";
import { requestIdFrom, withRequest } from "./lib/request_context.ts";
import { apiDocsRoutes } from "./routes/api_docs.ts";
import { bearerMatches } from "./auth/bearer_match.ts";
import { FilesUnavailableError } from "./files/firmware_files.ts";
import { Hono } from "hono";
import { operatorLeanGuard, requireOperator } from "./auth/middleware.ts";
import { roleCheck } from "./auth/roles.ts";
import { deviceGuard, deviceLeanGuard } from "./auth/device_auth.ts";
import { ddiGuard, ddiLeanGuard } from "./auth/ddi_auth.ts";
import { DeviceAuthThrottle } from "./auth/device_throttle.ts";
import { apiApp, checkMounted, type Guards, type LeanGuards, mount } from "./mount.ts";
import { type Fetch, leanFetch } from "./lean_routes.ts";
import { errorAnswer } from "./error_answer.ts";
import { devicesService } from "./services/devices.ts";
import { operatorsRoutes } from "./routes/operators.ts";
import { apiTokensRoutes } from "./routes/api_tokens.ts";
import type { AppContext, AppEnv } from "./context.ts";
import { notFound } from "./errors.ts";
import { compressJson } from "./lib/compress.ts";
import { auditRoutes } from "./routes/audit.ts";
import { authRoutes } from "./routes/auth.ts";
import { deviceApiRoutes } from "./routes/device_api.ts";
import { ddiApiRoutes } from "./routes/ddi.ts";
import { firmwaresRoutes } from "./routes/device_firmwares.ts";
import { deviceTypesRoutes } from "./routes/device_types.ts";
import { devicesRoutes } from "./routes/devices.ts";
import { fleetRoutes } from "./routes/fleet.ts";
import { productTypesRoutes } from "./routes/product_types.ts";
import { rolloutsRoutes } from "./routes/rollouts.ts";
import { savedViewsRoutes } from "./routes/saved_views.ts";
import { releaseKeysRoutes } from "./routes/release_keys.ts";
import { treatmentsRoutes } from "./routes/treatments.ts";
import { webRoutes } from "./routes/web.ts";
import { urlTextRule } from "./lib/text_rule.ts";

export const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'", // PrimeReact positions overlays with style attributes
    "img-src 'self' blob: data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

/** The release of this API's description (info.version of the OpenAPI document). */
export const API_VERSION = RELEASE;

let openApi: Record<string, unknown> | undefined;

/**
 * The app; its fetch answers the hot device routes mounted with a lean form below Hono when it can
 * (server/lean_routes.ts). `lean: false` leaves every request to Hono (tests compare the two).
 */
export function createApp(ctx: AppContext, opts: { lean?: boolean } = {}) {
  const requireOp = requireOperator(ctx);
  const devices = devicesService(ctx);
  metrics.countAuditEntriesWith(() => ctx.stores.audit.count());
  metrics.auditHeadWith(() => ctx.stores.audit.head());
  metrics.countDevicesByAdmission(() => devices.admissionCounts());

  // Every route of /api/v1 is mounted from its route table entry (server/mount.ts): its guard by its auth kind
  // (public routes have none), its role and scope, its validation.
  // One throttle of device credentials for the device API and hawkBit DDI alike (docs/REQUIREMENTS.md §19).
  const deviceThrottle = new DeviceAuthThrottle(ctx.config.DEVICE_AUTH_MAX_FAILURES);
  const ddiAuth = ddiGuard(ctx, deviceThrottle);
  const guards: Guards = {
    operator: (route) => {
      const check = roleCheck(route);
      return (c, next) => requireOp(c, next, check);
    },
    device: deviceGuard(ctx, deviceThrottle),
    ddi: ddiAuth,
  };
  // The guards' lean forms, for the routes answered below Hono (server/lean_routes.ts).
  const leanGuards: LeanGuards = {
    device: deviceLeanGuard(ctx, deviceThrottle),
    ddi: ddiLeanGuard(ctx, deviceThrottle),
    operator: operatorLeanGuard(ctx),
  };
  const api = apiApp(guards, new Hono<AppEnv>().use("*", compressJson()), leanGuards);
  authRoutes(api, ctx);
  operatorsRoutes(api, ctx);
  fleetRoutes(api, ctx, devices);
  rolloutsRoutes(api, ctx);
  auditRoutes(api, ctx);
  apiTokensRoutes(api, ctx);
  savedViewsRoutes(api, ctx);
  releaseKeysRoutes(api, ctx);
  devicesRoutes(api, ctx, devices);
  deviceTypesRoutes(api, ctx);
  firmwaresRoutes(api, ctx);
  treatmentsRoutes(api, ctx);
  productTypesRoutes(api, ctx);
  deviceApiRoutes(api, ctx);
  mount(api, routes.openApi, (c) => c.json(openApi ??= openApiDocument([...routeList, ...ddiRouteList], API_VERSION)));
  checkMounted(api);
  // hawkBit DDI at the server root (docs/REQUIREMENTS.md §18), mounted from its table as the API is.
  const ddi = apiApp(guards, undefined, leanGuards);
  ddiApiRoutes(ddi, ctx);
  checkMounted(ddi);

  const app = new Hono<AppEnv>()
    .use("*", (c, next) => {
      const started = performance.now();
      const requestId = requestIdFrom(c.req.header("x-request-id"));
      return withRequest(requestId, async () => {
        // Set up front, so every answer carries them: answers are made through the context (c.body, c.json, ...;
        // tests/architecture.test.ts refuses a hand-built Response in server/). A route may still override one with a
        // stricter value (e.g. `sandbox` on untrusted images). The answer's headers are not read afterwards: reading
        // them makes Deno drop the answer it prepared for the socket and send it the slow way (half the req/s).
        for (const k in SECURITY_HEADERS) c.header(k, SECURITY_HEADERS[k]);
        c.header("X-Request-Id", requestId);
        await next();
        const ms = performance.now() - started;
        const { method } = c.req;
        const status = c.res.status;
        // The route's pattern, not the path: one series per route, whatever ids are asked for.
        metrics.countRequest(c.req.routePath || "unmatched", method, status, ms / 1000);
        ctx.logRequest({ method, path: c.req.path, status, ms, requestId });
      });
    })
    // The text rule on the URL (docs/REQUIREMENTS.md §17), before any route: a path that holds a NUL or malformed UTF-8 names
    // nothing (404); such a query value is refused (400). JSON bodies and multipart parts: server/validate.ts and
    // lib/upload.ts.
    .use("*", urlTextRule)
    .get("/metrics", async (c) => {
      const token = ctx.config.METRICS_TOKEN;
      if (!token) return c.text("Not found", 404);
      if (!bearerMatches(c.req.header("authorization"), token)) {
        return c.json({ error: "unauthorized", msg: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>." }, 401);
      }
      return c.body(await metrics.metricsText(), 200, { "Content-Type": metrics.METRICS_CONTENT_TYPE });
    })
    .route("/api/docs", apiDocsRoutes())
    // Up while the disk is full (writes answer 507), so an orchestrator does not restart a server that would not start;
    // 503 while the database or the bucket cannot be reached (docs/REQUIREMENTS.md §10).
    .get("/healthz", async (c) => {
      try {
        await ctx.stores.system.ping();
      } catch {
        return c.json({ status: "unavailable", msg: "The database cannot be reached." }, 503);
      }
      try {
        await ctx.files.check();
      } catch (err) {
        if (!(err instanceof FilesUnavailableError)) throw err;
        return c.json({ status: "unavailable", msg: err.message }, 503);
      }
      return c.json({ status: "ok", storage: await storageState(ctx.paths.data) });
    })
    .route("/api/v1", api.app)
    // Answered here rather than thrown to onError (the same {error, msg}): an Error's stack trace is most of a 404's cost.
    .all("/api/*", (c) => c.json({ error: "not_found", msg: `No such API route: ${c.req.method} ${c.req.path}.` }, 404))
    .route("/", ddi.app)
    .route("/", webRoutes(ctx));

  app.notFound((c) => {
    if (c.req.path.startsWith("/api/")) throw notFound(`No such API route: ${c.req.method} ${c.req.path}.`);
    return c.text("Not found", 404);
  });

  app.onError((err, c) => {
    const { status, body } = errorAnswer(err, c.req.method, c.req.path, ctx.log);
    return c.json(body, status);
  });

  if (opts.lean !== false) {
    const honoFetch = app.fetch;
    app.fetch = leanFetch(honoFetch as Fetch, new Map([...api.lean, ...ddi.lean]), {
      headers: SECURITY_HEADERS,
      log: ctx.log,
      logRequest: ctx.logRequest,
    }) as typeof app.fetch;
  }
  return app;
}
