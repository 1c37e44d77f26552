import { rolloutActionRoutes, routes } from "../../shared/routes/mod.ts";
import type { RolloutAction } from "../../shared/schemas/rollout.ts";
import type { AppContext } from "../context.ts";
import { noRollout } from "../db/rules/rollouts.ts";
import { notFound } from "../errors.ts";
import { type Api, mount } from "../mount.ts";
import { rolloutsService } from "../services/rollouts.ts";

/** docs/REQUIREMENTS.md §13: staged rollouts (the rules and the automatic steps are the store's). */
export function rolloutsRoutes(api: Api, ctx: AppContext) {
  const { rollouts } = ctx.stores;
  const service = rolloutsService(ctx);
  mount(api, routes.rolloutTargets, async (c, { query }) => {
    return c.json({ targeted: await rollouts.targets(query.productTypeId ?? null) });
  });
  mount(api, routes.listRollouts, async (c) => c.json(await rollouts.list()));
  mount(api, routes.createRollout, async (c, { body }) => {
    const rollout = await rollouts.create(body, { email: c.get("operator").email });
    ctx.log(`Rollout ${rollout.name} (${rollout._id}) created by ${rollout.createdBy}.`);
    return c.json(rollout, 201);
  });
  mount(api, routes.getRollout, async (c, { params: { id } }) => {
    const rollout = await rollouts.get(id);
    if (!rollout) throw notFound(noRollout(id));
    return c.json(rollout);
  });
  mount(api, routes.rolloutDevices, async (c, { params: { id }, query }) => {
    const page = await rollouts.devices(id, query);
    if (!page) throw notFound(noRollout(id));
    return c.json(page);
  });
  mount(api, routes.rolloutStages, async (c, { params: { id } }) => {
    const stages = await rollouts.stages(id);
    if (!stages) throw notFound(noRollout(id));
    return c.json(stages);
  });
  mount(api, routes.rolloutHistory, async (c, { params: { id } }) => {
    const points = await rollouts.history(id);
    if (!points) throw notFound(noRollout(id));
    return c.json(points);
  });
  for (const [action, route] of Object.entries(rolloutActionRoutes) as [RolloutAction, typeof routes.startRollout][]) {
    mount(api, route, async (c, { params: { id } }) => c.json(await service.act(id, action, c.get("operator").email)));
  }
}
