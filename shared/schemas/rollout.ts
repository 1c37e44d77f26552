/** docs/REQUIREMENTS.md §13: device update status and staged rollouts. */
import * as z from "zod";
import { hasControlChars, Id, Name, Timestamp } from "./common.ts";
import { DeviceId, UPDATE_STATES, UpdateState } from "./device.ts";

export { DeviceUpdate, UPDATE_STATES, UpdateState } from "./device.ts";

/** POST device/{deviceId}/status. */
export const StatusBody = z.strictObject({
  firmwareId: Id,
  state: UpdateState,
  progress: z.number().int("must be a whole number").min(0, "must be at least 0").max(100, "must be at most 100")
    .optional(),
  message: z.string().max(1000, "is at most 1000 characters").refine(
    (s) => s.isWellFormed(),
    "must be well-formed Unicode",
  )
    .refine((s) => !s.includes("\u0000"), "must not contain NUL").optional(),
});
export type StatusBody = z.infer<typeof StatusBody>;

export const ROLLOUT_STATES = ["draft", "running", "paused", "finished", "cancelled"] as const;
export const RolloutState = z.enum(ROLLOUT_STATES);
export type RolloutState = z.infer<typeof RolloutState>;

export const DEFAULT_STAGES = [1, 10, 50, 100] as const;
export const DEFAULT_FAILURE_THRESHOLD = 5;

export const Stages = z.array(
  z.number().gt(0, "must be greater than 0").max(100, "must be at most 100"),
).min(1, "must hold at least one stage").max(20, "holds at most 20 stages").refine(
  (s) => s.every((p, i) => i === 0 || p > s[i - 1]),
  "must be strictly increasing",
).refine((s) => s[s.length - 1] === 100, "must end at 100");

export const RolloutCreate = z.strictObject({
  name: Name,
  firmwareId: Id,
  productTypeId: Id.nullable(),
  stages: Stages.optional(),
  failureThreshold: z.number().min(0, "must be at least 0").max(100, "must be at most 100").optional(),
  autoAdvance: z.boolean().optional(),
});
export type RolloutCreate = z.infer<typeof RolloutCreate>;

export const RolloutCounts = z.object({
  targeted: z.number().int(),
  inStage: z.number().int(),
  downloading: z.number().int(),
  installing: z.number().int(),
  installed: z.number().int(),
  failed: z.number().int(),
  /** Devices of the current stage without a final report (neither installed nor failed): inStage - installed - failed. */
  pending: z.number().int(),
});
export type RolloutCounts = z.infer<typeof RolloutCounts>;

export const Rollout = z.object({
  _id: Id,
  name: z.string(),
  firmwareId: Id,
  productTypeId: Id.nullable(),
  stages: z.array(z.number()),
  failureThreshold: z.number(),
  autoAdvance: z.boolean(),
  state: RolloutState,
  stage: z.number().int(),
  pausedReason: z.string().nullable(),
  counts: RolloutCounts,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  createdBy: z.string(),
});
export type Rollout = z.infer<typeof Rollout>;

/** The actions of POST rollouts/{id}/{action}. */
export const ROLLOUT_ACTIONS = ["start", "pause", "resume", "advance", "cancel", "promote", "retry"] as const;
export type RolloutAction = typeof ROLLOUT_ACTIONS[number];

/** A device of a rollout's current stage; `state` null: no report yet (pending). */
export const RolloutDevice = z.object({
  deviceId: DeviceId,
  state: UpdateState.nullable(),
  progress: z.number().int().nullable(),
  message: z.string().nullable(),
  at: Timestamp.nullable(),
});
export type RolloutDevice = z.infer<typeof RolloutDevice>;

export const RolloutDeviceFilter = z.enum(["pending", ...UPDATE_STATES]);
export type RolloutDeviceFilter = z.infer<typeof RolloutDeviceFilter>;

const intParam = (min: number, max: number) =>
  z.string().regex(/^\d{1,10}$/, "must be a whole number").transform(Number).pipe(
    z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );

export const RolloutDevicesQuery = z.object({
  state: RolloutDeviceFilter.optional(),
  page: intParam(0, 1_000_000_000).default(0),
  rowsPerPage: intParam(1, 100).default(25),
});
export type RolloutDevicesQuery = z.input<typeof RolloutDevicesQuery>;

export const RolloutDevicePage = z.object({
  data: z.array(RolloutDevice),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type RolloutDevicePage = z.infer<typeof RolloutDevicePage>;

/** One point of a rollout's chart: the state counts at the end of a minute in which something changed. */
export const RolloutHistoryPoint = z.object({
  at: Timestamp,
  stage: z.number().int(),
  inStage: z.number().int(),
  downloading: z.number().int(),
  installing: z.number().int(),
  installed: z.number().int(),
  failed: z.number().int(),
});
export type RolloutHistoryPoint = z.infer<typeof RolloutHistoryPoint>;

/** GET rollout_targets?productTypeId=: how many devices a rollout would target now (for the create dialog). */
export const RolloutTargetsQuery = z.object({
  productTypeId: Id.refine((s) => !hasControlChars(s), "must not contain control characters").optional(),
});
export const RolloutTargets = z.object({ targeted: z.number().int() });
export type RolloutTargets = z.infer<typeof RolloutTargets>;

/**
 * GET rollouts/{id}/stages: each stage as the devices it holds (cumulative: bucket below its percentage). `reached`:
 * the rollout has entered it (the current stage and those before, or every stage once finished); a stage not reached
 * has no reports and no pending devices yet: `devices` says how many it will offer the firmware to.
 */
export const RolloutStage = z.object({
  stage: z.number().int(),
  percent: z.number(),
  reached: z.boolean(),
  devices: z.number().int(),
  installed: z.number().int(),
  failed: z.number().int(),
  pending: z.number().int(),
});
export type RolloutStage = z.infer<typeof RolloutStage>;
