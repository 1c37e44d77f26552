import { Hono } from "hono";
import type { AppContext, AppEnv } from "../context.ts";

// TODO(web): serve the esbuild bundle with SPA fallback and cache headers (CONTRACT §9).
export function webRoutes(_ctx: AppContext) {
  return new Hono<AppEnv>().get("*", (c) => c.text("The web console is not built yet.", 404));
}
