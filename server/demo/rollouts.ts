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

/** One report a device makes: its state at a moment. */
interface Report {
  ms: number;
  deviceId: string;
  state: UpdateState;
}

/** A spread of fractions in (0, 1] from an index, so report times look scattered but are the same every time. */
const spread = (i: number) => ((i * 61) % 97 + 1) / 97;

/**
 * When a device reports, in a stage entered at `from`: only a device seen (checked in) since can have learnt of the
 * firmware, so it reports by its last check-in, within `span` of the stage's start; null for a device not seen since.
 * A path of several states ends at that moment, its earlier states up to 20 minutes apart before it.
 */
function reportsOf(
  deviceId: string,
  path: UpdateState[],
  lastSeen: number | undefined,
  from: number,
  span: number,
  i: number,
) {
  if (lastSeen === undefined || lastSeen <= from + MINUTE) return null;
  const end = from + Math.max(MINUTE, Math.floor(spread(i) * (Math.min(lastSeen, from + span) - from)));
  const gap = Math.min(20 * MINUTE, Math.floor((end - from) / (path.length + 1)));
  return path.map((state, k): Report => ({ ms: end - (path.length - 1 - k) * gap, deviceId, state }));
}

export async function seedRollouts(
  stores: Stores,
  opts: {
    product: string;
    by: string;
    stable: Firmware;
    candidate: Firmware;
    /** Each demo device's last check-in (ms). */
    lastSeen: Map<string, number>;
    nowMs: number;
  },
): Promise<DemoRollouts> {
  const { rollouts, deviceApi } = stores;
  const { product, stable, candidate, lastSeen, nowMs } = opts;
  const by = { email: opts.by };
  const at = <T>(ms: number, fn: () => Promise<T>) => atInstant(new Date(Math.min(ms, nowMs)).toISOString(), fn);
  let reports = 0;
  /** The reports in the order they happened, so the counts and their history move as they would have. */
  const play = async (list: Report[], firmwareId: string) => {
    for (const r of list.toSorted((a, b) => a.ms - b.ms)) {
      reports++;
      await at(r.ms, () =>
        deviceApi.status(r.deviceId, {
          firmwareId,
          state: r.state,
          progress: PROGRESS[r.state],
          ...(r.state === "failed" ? { message: FAILURE } : {}),
        }, product));
    }
  };
  /** The current stage's devices that have not reported, by device id. */
  const pending = async (id: string) =>
    (await rollouts.devices(id, { state: "pending", page: 0, rowsPerPage: 1000 }))!.data.map((d) => d.deviceId);
  const current = async (id: string) => (await rollouts.get(id))!;
  /** When the rollout entered its current stage (or last changed). */
  const since = async (id: string) => Date.parse((await current(id)).updatedAt);

  // Finished: the stable firmware for one product type. In each stage the devices seen since installed it; a stage
  // every device installed advanced by itself, the others the operator advanced a day later, and advancing the last
  // stage finished it (devices not seen since it started never reported).
  const scope = (await stores.productTypes.list()).find((pt) => pt.name === DEMO_FINISHED_SCOPE)!;
  const t0 = nowMs - 16 * DAY;
  const finished = await at(
    t0,
    () => rollouts.create({ name: DEMO_FINISHED_ROLLOUT, firmwareId: stable._id, productTypeId: scope._id }, by),
  );
  await at(t0 + 10 * MINUTE, () => rollouts.act(finished._id, "start", by, product));
  for (let guard = 0; guard < 10 && (await current(finished._id)).state === "running"; guard++) {
    const { stage } = await current(finished._id);
    const from = await since(finished._id);
    await play(
      (await pending(finished._id)).flatMap((d, i) => reportsOf(d, ["installed"], lastSeen.get(d), from, DAY, i) ?? []),
      stable._id,
    );
    const now = await current(finished._id);
    if (now.state === "running" && now.stage === stage) {
      await at(from + DAY, () => rollouts.act(finished._id, "advance", by, product));
    }
  }

  // Running: the release candidate for every device. The first stage's devices seen since installed it, and the
  // rollout went on to its second stage (by itself, or advanced by the operator half a day later); there some of the
  // devices seen since are downloading, installing, done or failed, and the others have not reported.
  const t1 = nowMs - 3 * DAY;
  const running = await at(t1, () =>
    rollouts.create({
      name: DEMO_RUNNING_ROLLOUT,
      firmwareId: candidate._id,
      productTypeId: null,
      failureThreshold: RUNNING_FAILURE_THRESHOLD,
    }, by));
  await at(t1 + 10 * MINUTE, () => rollouts.act(running._id, "start", by, product));
  if ((await current(running._id)).stage === 0) {
    const from = await since(running._id);
    await play(
      (await pending(running._id)).flatMap((d, i) =>
        reportsOf(d, PATH.installed, lastSeen.get(d), from, HOUR * 6, i) ?? []
      ),
      candidate._id,
    );
    if ((await current(running._id)).stage === 0) {
      await at(from + DAY / 2, () => rollouts.act(running._id, "advance", by, product));
    }
  }
  const from = await since(running._id);
  const second = await pending(running._id);
  const { counts } = await current(running._id);
  // At least one device stays pending (or the stage would be complete and advance), and a failure that would pause
  // the rollout in a small fleet is left out.
  const plan = SECOND_STAGE.filter((s) => s !== "failed" || 100 <= RUNNING_FAILURE_THRESHOLD * counts.inStage);
  // (Seen since the stage began: as reportsOf decides.)
  const seen = second.filter((d) => (lastSeen.get(d) ?? 0) > from + MINUTE)
    .slice(0, Math.min(plan.length, second.length - 1));
  await play(
    seen.flatMap((d, i) => reportsOf(d, PATH[plan[i]], lastSeen.get(d), from, nowMs - from, i) ?? []),
    candidate._id,
  );
  return { finished: await current(finished._id), running: await current(running._id), reports };
}
