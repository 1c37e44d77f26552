/**
 * A rollout draft whose first stage holds some but not all of `ids`. Which devices a stage holds follows from the
 * rollout's random id (bucket(), server/db/rules/rollouts.ts), so a test of a handful of devices meets, now and then, a
 * first stage of none (it advances at once when started) or all of them; such a draft is cancelled and made again.
 */
import { bucket } from "../../server/db/rules/rollouts.ts";

export async function draftWithSplitFirstStage<R extends { _id: string }>(
  ids: readonly string[],
  firstPercent: number,
  create: () => Promise<R>,
  cancel: (id: string) => Promise<unknown>,
): Promise<R> {
  const inFirst = (id: string) => ids.filter((d) => bucket(id, d) < firstPercent).length;
  let draft = await create();
  for (let n = inFirst(draft._id); n === 0 || n === ids.length; n = inFirst(draft._id)) {
    await cancel(draft._id);
    draft = await create();
  }
  return draft;
}
