/**
 * Staged rollouts (docs/REQUIREMENTS.md §13): the rules every engine shares. Stage membership is a pure function of the rollout
 * id and the device id, so both engines, the tests and the bench agree on it, and a device never leaves a stage it
 * entered. The engines keep the counts; this file decides what they mean.
 */
import { createHash } from "node:crypto";
import type {
  Rollout,
  RolloutAction,
  RolloutCounts,
  RolloutStage,
  RolloutState,
} from "../../../shared/schemas/rollout.ts";
import type { DeviceUpdate, FirmwareInEffect, UpdateState } from "../../../shared/schemas/device.ts";
import type { StatusBody } from "../../../shared/schemas/rollout.ts";

/**
 * A device's bucket in a rollout, in [0, 100): the first 32 bits of sha256(rolloutId + ":" + deviceId), big-endian,
 * scaled. A device is in stage k when bucket < stages[k]. Never change this: devices would move between stages.
 */
export function bucket(rolloutId: string, deviceId: string): number {
  const digest = createHash("sha256").update(`${rolloutId}:${deviceId}`, "utf8").digest();
  return digest.readUInt32BE(0) / 2 ** 32 * 100;
}

/** The cumulative percentage of a stage index; -1 (not started) reaches nobody. */
export const stagePercent = (stages: readonly number[], stage: number): number => stage < 0 ? 0 : stages[stage];

/** Whether a device is in the rollout's current stage. */
export const inCurrentStage = (r: Pick<Rollout, "_id" | "stages" | "stage">, deviceId: string): boolean =>
  bucket(r._id, deviceId) < stagePercent(r.stages, r.stage);

/** Rollouts whose stage decides a device's firmware (with cancelled ones for devices that installed it). */
export const OFFERING_STATES: readonly RolloutState[] = ["running", "paused", "finished"];
/** Rollouts that hold their product type (one at a time per product type, one for "all"). */
export const ACTIVE_STATES: readonly RolloutState[] = ["running", "paused"];
/** Rollouts whose firmware cannot be deleted. */
export const USING_STATES: readonly RolloutState[] = ["draft", "running", "paused"];

/** The state an action needs and the one it leaves (promote and advance are decided by the store). */
export const TRANSITIONS: Record<RolloutAction, { from: readonly RolloutState[] }> = {
  start: { from: ["draft"] },
  pause: { from: ["running"] },
  resume: { from: ["paused"] },
  advance: { from: ["running"] },
  cancel: { from: ["draft", "running", "paused"] },
  promote: { from: ["finished"] },
  // Failed devices of a rollout that offers its firmware (a finished one too: its stage still holds them).
  retry: { from: ["running", "paused", "finished"] },
};

export const noRollout = (id: string) => `No rollout with id ${id}.`;
export const notAllowed = (action: RolloutAction, r: Pick<Rollout, "name" | "state">) =>
  `Rollout ${r.name} is ${r.state}: it cannot be ${PAST[action]} (only a ${
    TRANSITIONS[action].from.join(", ").replace(/, ([^,]*)$/, " or $1")
  } rollout can).`;
const PAST: Record<RolloutAction, string> = {
  start: "started",
  pause: "paused",
  resume: "resumed",
  advance: "advanced",
  cancel: "cancelled",
  promote: "promoted",
  retry: "retried",
};
export const nothingToRetry = (r: Pick<Rollout, "name">) =>
  `Rollout ${r.name} has no failed devices: there is nothing to retry.`;
export const scopeBusy = (productTypeName: string | null, other: string) =>
  `Rollout ${other} is already running or paused for ${
    productTypeName === null ? "all devices" : `product type ${productTypeName}`
  }: finish, cancel or wait for it first.`;
export const noFirmwareField = (id: string) => `firmwareId: no firmware with id ${id}.`;
export const noProductTypeField = (id: string) => `productTypeId: no product type with id ${id}.`;
export const statusMismatch = (deviceId: string, sent: string, expected: string | null) =>
  `firmwareId: device ${deviceId} is not being offered firmware ${sent} (its configuration names ${
    expected === null ? "no firmware" : expected
  }).`;

/** The counts a store keeps per rollout, as columns. */
export interface CountRow {
  targeted: number;
  in_stage: number;
  downloading: number;
  installing: number;
  installed: number;
  failed: number;
  /** Failures an operator accepted by resuming (they no longer count against the threshold). */
  failed_accepted: number;
}

export const countsOf = (r: CountRow): RolloutCounts => ({
  targeted: Number(r.targeted),
  inStage: Number(r.in_stage),
  downloading: Number(r.downloading),
  installing: Number(r.installing),
  installed: Number(r.installed),
  failed: Number(r.failed),
  pending: Math.max(0, Number(r.in_stage) - Number(r.installed) - Number(r.failed)),
});

/** The column of a state's count. */
export const COUNT_COLUMN: Record<UpdateState, "downloading" | "installing" | "installed" | "failed"> = {
  downloading: "downloading",
  installing: "installing",
  installed: "installed",
  failed: "failed",
};

/** The failures that count against the threshold: those since the operator's last resume. */
const countedFailures = (r: CountRow) => Math.max(0, Number(r.failed) - Number(r.failed_accepted));

/** Whether the stage's failed share exceeds the threshold (a share of the devices in the current stage). */
export function overThreshold(r: CountRow, failureThreshold: number): boolean {
  const inStage = Number(r.in_stage);
  return inStage > 0 && countedFailures(r) * 100 > failureThreshold * inStage;
}

/** Every device of the current stage reported installed or failed. */
export const stageComplete = (r: CountRow) => Number(r.installed) + Number(r.failed) >= Number(r.in_stage);

export const autoPauseReason = (stage: number, r: CountRow, failureThreshold: number) => {
  const failed = countedFailures(r);
  const share = Math.round(failed * 1000 / Number(r.in_stage)) / 10;
  return `Paused automatically: ${failed} of ${r.in_stage} device${Number(r.in_stage) === 1 ? "" : "s"} in stage ${
    stage + 1
  } failed (${share} %), over the threshold of ${failureThreshold} %.`;
};
export const manualPauseReason = (by: string) => `Paused by ${by}.`;

/**
 * A stage index from a bucket, in SQL (`bucketSql`: the engine's column or expression): 0 for the first stage, ...;
 * the `p` binds each percentage in textual order.
 */
export function stageIndexSql(stages: readonly number[], bucketSql: string, p: (v: number) => string): string {
  return `(CASE ${
    stages.map((pct, k) => `WHEN ${bucketSql} < ${p(pct)} THEN ${k}`).join(" ")
  } ELSE ${stages.length} END)`;
}

/**
 * GET rollouts/{id}/stages from the devices per stage index (its own slice of buckets) and report state: cumulative
 * per stage; a stage is reached once the rollout entered it (not in a draft); only a reached stage has pending
 * devices.
 */
export function stagesOf(
  r: Pick<Rollout, "stages" | "stage" | "state">,
  groups: readonly { k: number; state: string | null; n: number }[],
): RolloutStage[] {
  let devices = 0, installed = 0, failed = 0;
  return r.stages.map((percent, stage) => {
    for (const g of groups) {
      if (Number(g.k) !== stage) continue;
      devices += Number(g.n);
      if (g.state === "installed") installed += Number(g.n);
      if (g.state === "failed") failed += Number(g.n);
    }
    const reached = r.state !== "draft" && stage <= r.stage;
    return {
      stage,
      percent,
      reached,
      devices,
      installed,
      failed,
      pending: reached ? Math.max(0, devices - installed - failed) : 0,
    };
  });
}

/** The message of a device counted installed because it already runs the rollout's firmware. */
export const ALREADY_RUNNING = "Already running this firmware when its stage began (its latest report: installed).";

/**
 * What a running rollout should do now: pause when failures exceed the threshold (whatever autoAdvance says: a bad
 * firmware must stop), else with autoAdvance advance (or finish, at the last stage) once every device of the stage
 * has reported installed or failed; the last stage complete finishes the rollout even without autoAdvance.
 */
export function nextStep(
  r: Pick<Rollout, "state" | "stage" | "stages" | "failureThreshold" | "autoAdvance">,
  counts: CountRow,
): "pause" | "advance" | "finish" | null {
  if (r.state !== "running") return null;
  if (overThreshold(counts, r.failureThreshold)) return "pause";
  if (!stageComplete(counts)) return null;
  const last = r.stage >= r.stages.length - 1;
  if (last) return "finish";
  return r.autoAdvance ? "advance" : null;
}

/** A rollout row as both engines store it. */
export interface RolloutRow extends CountRow {
  id: string;
  name: string;
  firmware_id: string;
  product_type_id: string | null;
  stages: string;
  failure_threshold: number;
  auto_advance: number | boolean;
  state: RolloutState;
  stage: number;
  stage_percent: number;
  paused_reason: string | null;
  created_at: string;
  updated_at: string;
  created_by: string;
}

export const ROLLOUT_COLUMNS = `id, name, firmware_id, product_type_id, stages, failure_threshold, auto_advance, state,
  stage, stage_percent, paused_reason, targeted, in_stage, downloading, installing, installed, failed, failed_accepted, created_at,
  updated_at, created_by`;

export function rolloutFromRow(r: RolloutRow): Rollout {
  return {
    _id: r.id,
    name: r.name,
    firmwareId: r.firmware_id,
    productTypeId: r.product_type_id,
    stages: JSON.parse(r.stages),
    failureThreshold: Number(r.failure_threshold),
    autoAdvance: r.auto_advance === true || r.auto_advance === 1,
    state: r.state,
    stage: Number(r.stage),
    pausedReason: r.paused_reason,
    counts: countsOf(r),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    createdBy: r.created_by,
  };
}

/** The minute a history point belongs to (points are kept per minute in which something changed). */
export const historyMinute = (at: string) => `${at.slice(0, 16)}:00.000Z`;

export const unknownDevice = (id: string) => `No device with deviceId ${id}; it must check in first.`;

/** A report as the device's `update` (progress and message null when not sent). */
export const deviceUpdateOf = (report: StatusBody, at: string): DeviceUpdate => ({
  firmwareId: report.firmwareId,
  state: report.state,
  progress: report.progress ?? null,
  message: report.message ?? null,
  at,
});

/** The audit target of a rollout. */
export const rolloutTarget = (r: { id: string; name: string }) => ({ type: "rollout", id: r.id, name: r.name });

/** What an audit entry of a rollout step says: where it stands now. */
export const rolloutDetails = (r: RolloutRow, extra: Record<string, unknown> = {}) => ({
  ...extra,
  state: r.state,
  stage: Number(r.stage),
  stagePercent: Number(r.stage_percent),
  counts: countsOf(r),
});

/** GET devices/{deviceId}/firmware from config resolution's answer (rolloutName: the offering rollout's name). */
export function firmwareInEffectOf(
  deviceId: string,
  customFirmwareId: string | null,
  resolved: { rolloutId: string | null; firmware: { _id: string; name: string } | null },
  rolloutName: string | null,
): FirmwareInEffect {
  const firmware = resolved.firmware;
  return {
    deviceId,
    firmwareId: firmware?._id ?? null,
    firmwareName: firmware?.name ?? null,
    source: firmware === null
      ? null
      : customFirmwareId !== null
      ? "custom"
      : resolved.rolloutId !== null
      ? "rollout"
      : "default",
    rolloutId: firmware === null ? null : resolved.rolloutId,
    rolloutName: firmware === null ? null : rolloutName,
  };
}
