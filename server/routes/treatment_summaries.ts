import { Hono } from "hono";
import type { AppContext, AppEnv } from "../context.ts";

/** GET treatment_summaries: every treatment without its phases (lists, counts and pickers of the console). */
export function treatmentSummariesRoutes(ctx: AppContext) {
  const { treatments } = ctx.stores;
  return new Hono<AppEnv>().get("/", async (c) => c.json(await treatments.listSummaries()));
}
