/** Rollout actions (docs/REQUIREMENTS.md §13): the store checks the transition and takes the automatic steps; this logs it. */
import type { Rollout, RolloutAction } from "../../shared/schemas/rollout.ts";
import type { AppContext } from "../context.ts";

export function rolloutsService(ctx: AppContext) {
  const { rollouts } = ctx.stores;
  return {
    async act(id: string, action: RolloutAction, email: string): Promise<Rollout> {
      const rollout = await rollouts.act(id, action, { email }, ctx.config.PRODUCT);
      ctx.log(
        `Rollout ${rollout.name} (${rollout._id}): ${action} by ${email}; now ${rollout.state}, stage ${
          rollout.stage + 1
        } of ${rollout.stages.length}.`,
      );
      return rollout;
    },
  };
}
