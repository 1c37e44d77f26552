import { Hono } from "hono";
import type { AppContext, AppEnv } from "../context.ts";

// TODO(owner): implement the routes of CONTRACT §5 for /api/v1/device_api.
export function deviceApiRoutes(_ctx: AppContext) {
  return new Hono<AppEnv>();
}
