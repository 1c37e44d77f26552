import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { RolloutAction } from "../../shared/schemas/rollout.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noRollout } from "../db/rules/rollouts.ts";
import { notFound } from "../errors.ts";
import { bodyOf, paramsOf, queryOf } from "../route_table.ts";

const ACTION_ROUTES = {
  start: routes.startRollout,
  pause: routes.pauseRollout,
  resume: routes.resumeRollout,
  advance: routes.advanceRollout,
  cancel: routes.cancelRollout,
  promote: routes.promoteRollout,
  retry: routes.retryRollout,
} as const satisfies Record<RolloutAction, unknown>;

/** CONTRACT §13: staged rollouts (the rules and the automatic steps are the store's). */
export function rolloutsRoutes(ctx: AppContext) {
  const { rollouts } = ctx.stores;
  const app = new Hono<AppEnv>()
    .get("/rollout_targets", async (c) => {
      const { productTypeId } = queryOf(routes.rolloutTargets, c);
      return c.json({ targeted: await rollouts.targets(productTypeId ?? null) });
    })
    .get("/rollouts", async (c) => c.json(await rollouts.list()))
    .post("/rollouts", async (c) => {
      const body = await bodyOf(routes.createRollout, c);
      const rollout = await rollouts.create(body, { email: c.get("operator").email });
      ctx.log(`Rollout ${rollout.name} (${rollout._id}) created by ${rollout.createdBy}.`);
      return c.json(rollout, 201);
    })
    .get("/rollouts/:id", async (c) => {
      const { id } = paramsOf(routes.getRollout, c);
      const rollout = await rollouts.get(id);
      if (!rollout) throw notFound(noRollout(id));
      return c.json(rollout);
    })
    .get("/rollouts/:id/devices", async (c) => {
      const { id } = paramsOf(routes.rolloutDevices, c);
      const page = await rollouts.devices(id, queryOf(routes.rolloutDevices, c));
      if (!page) throw notFound(noRollout(id));
      return c.json(page);
    })
    .get("/rollouts/:id/stages", async (c) => {
      const { id } = paramsOf(routes.rolloutStages, c);
      const stages = await rollouts.stages(id);
      if (!stages) throw notFound(noRollout(id));
      return c.json(stages);
    })
    .get("/rollouts/:id/history", async (c) => {
      const { id } = paramsOf(routes.rolloutHistory, c);
      const points = await rollouts.history(id);
      if (!points) throw notFound(noRollout(id));
      return c.json(points);
    });
  for (const [action, route] of Object.entries(ACTION_ROUTES) as [RolloutAction, typeof routes.startRollout][]) {
    app.post(`/rollouts/:id/${action}`, async (c) => {
      const { id } = paramsOf(route, c);
      const email = c.get("operator").email;
      const rollout = await rollouts.act(id, action, { email }, ctx.config.PRODUCT);
      ctx.log(
        `Rollout ${rollout.name} (${rollout._id}): ${action} by ${email}; now ${rollout.state}, stage ${
          rollout.stage + 1
        } of ${rollout.stages.length}.`,
      );
      return c.json(rollout);
    });
  }
  return app;
}
