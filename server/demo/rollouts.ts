/**
 * The demo's staged rollouts (DEMO=1): one finished, one running at its second stage with devices part way through,
 * written as operators and devices write them (the stores' rollout actions and the device API's status report), so the
 * counts, the history and each device's update state are the stores' own. Each step runs at its moment in the past
 * (atInstant), so the Rollouts page shows a history of days, not of the seconds the seeding took.
 */
import type { UpdateState } from "../../shared/schemas/device.ts";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import type { Rollout } from "../../shared/schemas/rollout.ts";
import { atInstant } from "../db/clock.ts";
import type { Stores } from "../db/stores.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The product type whose devices got the stable firmware through the finished rollout. */
export const DEMO_FINISHED_SCOPE = "JeeCee Sport";
export const DEMO_FINISHED_ROLLOUT = "JeeCee Sport: firmware 1.4.2";
export const DEMO_RUNNING_ROLLOUT = "Firmware 1.5.0-rc1, every device";
/** The running rollout tolerates one failure in its second stage without pausing. */
const RUNNING_FAILURE_THRESHOLD = 10;

/**
 * What the devices of the running rollout's second stage have reported, in this order over the device ids (the rest
 * have not reported yet): each state is reached through the states before it, as a device reports them.
 */
const SECOND_STAGE: UpdateState[] = [
  "installed",
  "downloading",
  "installing",
  "failed",
  "installed",
  "installed",
  "downloading",
  "installed",
  "installing",
  "installed",
  "downloading",
  "installed",
];
const PATH: Record<UpdateState, UpdateState[]> = {
  downloading: ["downloading"],
  installing: ["downloading", "installing"],
  installed: ["downloading", "installing", "installed"],
  failed: ["downloading", "installing", "failed"],
};
const PROGRESS: Record<UpdateState, number> = { downloading: 40, installing: 70, installed: 100, failed: 70 };
const FAILURE = "Install step 2 of 3 failed: not enough space on the data partition.";

export interface DemoRollouts {
  finished: Rollout;
  running: Rollout;
  reports: number;
}

export async function seedRollouts(
  stores: Stores,
  opts: { product: string; by: string; stable: Firmware; candidate: Firmware; nowMs: number },
): Promise<DemoRollouts> {
  const { rollouts, deviceApi } = stores;
  const { product, stable, candidate, nowMs } = opts;
  const by = { email: opts.by };
  const at = <T>(ms: number, fn: () => Promise<T>) => atInstant(new Date(Math.min(ms, nowMs)).toISOString(), fn);
  let reports = 0;
  const report = (ms: number, deviceId: string, firmwareId: string, state: UpdateState) => {
    reports++;
    return at(ms, () =>
      deviceApi.status(deviceId, {
        firmwareId,
        state,
        progress: PROGRESS[state],
        ...(state === "failed" ? { message: FAILURE } : {}),
      }, product));
  };
  /** The current stage's devices that have not reported, by device id. */
  const pending = async (id: string) => (await rollouts.devices(id, { state: "pending", page: 0, rowsPerPage: 1000 }))!;
  const current = async (id: string) => (await rollouts.get(id))!;

  // Finished: the stable firmware for one product type, advanced stage by stage as every device installed it; the
  // last stage complete finished it.
  const scope = (await stores.productTypes.list()).find((pt) => pt.name === DEMO_FINISHED_SCOPE)!;
  let t = nowMs - 16 * DAY;
  const finished = await at(
    t,
    () => rollouts.create({ name: DEMO_FINISHED_ROLLOUT, firmwareId: stable._id, productTypeId: scope._id }, by),
  );
  t += 10 * MINUTE;
  await at(t, () => rollouts.act(finished._id, "start", by, product));
  for (let guard = 0; guard < 10 && (await current(finished._id)).state === "running"; guard++) {
    t += 2 * HOUR;
    const page = await pending(finished._id);
    if (!page.data.length) throw new Error(`demo rollout ${DEMO_FINISHED_ROLLOUT}: a stage with nobody to report`);
    for (const d of page.data) await report(t += 17 * MINUTE, d.deviceId, stable._id, "installed");
    t += DAY;
  }

  // Running: the release candidate for every device. Its first stage installed it, which moved the rollout to its
  // second stage, where some devices are downloading, installing, done or failed, and the others have not reported.
  t = nowMs - 3 * DAY;
  const running = await at(t, () =>
    rollouts.create({
      name: DEMO_RUNNING_ROLLOUT,
      firmwareId: candidate._id,
      productTypeId: null,
      failureThreshold: RUNNING_FAILURE_THRESHOLD,
    }, by));
  t += 10 * MINUTE;
  await at(t, () => rollouts.act(running._id, "start", by, product));
  if ((await current(running._id)).stage === 0) {
    for (const d of (await pending(running._id)).data) {
      for (const state of PATH.installed) await report(t += 9 * MINUTE, d.deviceId, candidate._id, state);
    }
  }
  // (A first stage that holds no device, or whose devices all installed, has advanced by itself.)
  if ((await current(running._id)).stage === 0) await at(t, () => rollouts.act(running._id, "advance", by, product));
  const second = (await pending(running._id)).data;
  const { counts } = await current(running._id);
  // At least one device stays pending (or the stage would be complete and advance), and a failure that would pause
  // the rollout in a small fleet is left out.
  const plan = SECOND_STAGE.slice(0, Math.max(0, second.length - 1))
    .filter((s) => s !== "failed" || 100 <= RUNNING_FAILURE_THRESHOLD * counts.inStage);
  const step = Math.floor((nowMs - HOUR - t) / Math.max(1, plan.reduce((n, state) => n + PATH[state].length, 0)));
  for (const [i, state] of plan.entries()) {
    for (const s of PATH[state]) await report(t += step, second[i].deviceId, candidate._id, s);
  }
  return { finished: await current(finished._id), running: await current(running._id), reports };
}
