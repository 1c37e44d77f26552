import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { requireOperator } from "./auth/middleware.ts";
import type { AppContext, AppEnv } from "./context.ts";
import { ApiHttpError, errorCodeFor, fromStoreError, notFound } from "./errors.ts";
import { compressJson } from "./lib/compress.ts";
import { authRoutes } from "./routes/auth.ts";
import { deviceApiRoutes } from "./routes/device_api.ts";
import { firmwaresRoutes } from "./routes/device_firmwares.ts";
import { deviceTypesRoutes } from "./routes/device_types.ts";
import { devicesRoutes } from "./routes/devices.ts";
import { productTypesRoutes } from "./routes/product_types.ts";
import { treatmentImagesRoutes } from "./routes/treatment_images.ts";
import { treatmentSummariesRoutes } from "./routes/treatment_summaries.ts";
import { treatmentsRoutes } from "./routes/treatments.ts";
import { webRoutes } from "./routes/web.ts";

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

/** Paths under /api/v1 that do not take an operator token. */
const PUBLIC_API = /^\/api\/v1\/(login$|device\/)/;

export function createApp(ctx: AppContext) {
  const requireOp = requireOperator(ctx);

  const api = new Hono<AppEnv>()
    .use("*", compressJson())
    .use("*", (c, next) => PUBLIC_API.test(c.req.path) ? next() : requireOp(c, next))
    .route("/", authRoutes(ctx))
    .route("/devices", devicesRoutes(ctx))
    .route("/device_types", deviceTypesRoutes(ctx))
    .route("/device_firmwares", firmwaresRoutes(ctx))
    .route("/treatments", treatmentsRoutes(ctx))
    .route("/treatment_summaries", treatmentSummariesRoutes(ctx))
    .route("/treatment_images", treatmentImagesRoutes(ctx))
    .route("/product_types", productTypesRoutes(ctx))
    .route("/device", deviceApiRoutes(ctx));

  const app = new Hono<AppEnv>()
    .use("*", async (c, next) => {
      const started = performance.now();
      // Set up front, so responses made through the context carry them from the start; a route may still
      // override one with a stricter value (e.g. `sandbox` on untrusted images).
      for (const k in SECURITY_HEADERS) c.header(k, SECURITY_HEADERS[k]);
      await next();
      // Responses a route built itself (file streams) get the ones they lack.
      for (const k in SECURITY_HEADERS) if (!c.res.headers.has(k)) c.res.headers.set(k, SECURITY_HEADERS[k]);
      ctx.logRequest(`${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - started).toFixed(1)}ms`);
    })
    .get("/healthz", (c) => c.json({ status: "ok" }))
    .route("/api/v1", api)
    .all("/api/*", (c) => {
      throw notFound(`No such API route: ${c.req.method} ${c.req.path}.`);
    })
    .route("/", webRoutes(ctx));

  app.notFound((c) => {
    if (c.req.path.startsWith("/api/")) throw notFound(`No such API route: ${c.req.method} ${c.req.path}.`);
    return c.text("Not found", 404);
  });

  app.onError((err, c) => {
    const answer = err instanceof ApiHttpError ? err : fromStoreError(err);
    if (answer) return c.json({ error: answer.code, msg: answer.message }, answer.status);
    if (err instanceof HTTPException) {
      const status = err.status as ContentfulStatusCode;
      const msg = err.message || (status === 413 ? "The request body is too large." : "The request was refused.");
      return c.json({ error: errorCodeFor(status), msg }, status);
    }
    ctx.log(`ERROR ${c.req.method} ${c.req.path}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    return c.json({ error: "internal", msg: "Something went wrong on the server; the request changed nothing." }, 500);
  });

  return app;
}
