import * as z from "zod";
import {
  Rollout,
  RolloutCreate,
  RolloutDevicePage,
  RolloutDevicesQuery,
  RolloutHistoryPoint,
  RolloutStage,
  RolloutTargets,
  RolloutTargetsQuery,
} from "../schemas/rollout.ts";
import type { RolloutAction } from "../schemas/rollout.ts";
import { IdParams } from "./params.ts";
import { errors, json, noBody, type Route, route } from "./route.ts";

/** An action of docs/REQUIREMENTS.md §13: the rollout as it now is, 409 when its state does not allow it. */
const action = <const N extends string, const A extends string>(name: N, verb: A, summary: string) =>
  route({
    name,
    method: "POST",
    path: `/rollouts/:id/${verb}` as `/rollouts/:id/${A}`,
    auth: "operator",
    // Shipping a firmware to devices: the API token scope of the default firmware (docs/DECISIONS.md, "API tokens").
    scope: "firmware:write",
    summary,
    params: IdParams,
    body: noBody,
    answers: { 200: json(Rollout), ...errors(400, 401, 403, 404, 409) },
  });

export const rolloutRoutes = {
  listRollouts: route({
    name: "listRollouts",
    method: "GET",
    path: "/rollouts",
    auth: "operator",
    summary: "Every staged rollout, newest first, with its counts.",
    body: noBody,
    answers: { 200: json(z.array(Rollout)), ...errors(401, 403) },
  }),
  createRollout: route({
    name: "createRollout",
    method: "POST",
    path: "/rollouts",
    auth: "operator",
    scope: "firmware:write",
    summary: "A draft rollout of a firmware to a product type (or every device), in cumulative percentage stages.",
    body: json(RolloutCreate),
    answers: { 201: json(Rollout), ...errors(400, 401, 403, 409, 413, 415) },
  }),
  getRollout: route({
    name: "getRollout",
    method: "GET",
    path: "/rollouts/:id",
    auth: "operator",
    summary: "One rollout with its counts (kept as reports arrive: never counted per request).",
    params: IdParams,
    body: noBody,
    answers: { 200: json(Rollout), ...errors(400, 401, 403, 404) },
  }),
  rolloutDevices: route({
    name: "rolloutDevices",
    method: "GET",
    path: "/rollouts/:id/devices",
    auth: "operator",
    summary: "One page of the devices of the rollout's current stage with their latest report (state=pending: none).",
    params: IdParams,
    query: RolloutDevicesQuery,
    body: noBody,
    answers: { 200: json(RolloutDevicePage), ...errors(400, 401, 403, 404) },
  }),
  rolloutHistory: route({
    name: "rolloutHistory",
    method: "GET",
    path: "/rollouts/:id/history",
    auth: "operator",
    summary: "The rollout's counts at the end of each minute in which they changed, oldest first (for its chart).",
    params: IdParams,
    body: noBody,
    answers: { 200: json(z.array(RolloutHistoryPoint)), ...errors(400, 401, 403, 404) },
  }),
  rolloutStages: route({
    name: "rolloutStages",
    method: "GET",
    path: "/rollouts/:id/stages",
    auth: "operator",
    summary: "Each stage's devices (cumulative) with how many installed, failed and are pending (reached stages only).",
    params: IdParams,
    body: noBody,
    answers: { 200: json(z.array(RolloutStage)), ...errors(400, 401, 403, 404) },
  }),
  rolloutTargets: route({
    name: "rolloutTargets",
    method: "GET",
    path: "/rollout_targets",
    auth: "operator",
    summary: "How many devices a rollout to this product type (none: every device) would target now.",
    query: RolloutTargetsQuery,
    body: noBody,
    answers: { 200: json(RolloutTargets), ...errors(400, 401, 403) },
  }),
  startRollout: action("startRollout", "start", "Start a draft rollout at its first stage."),
  pauseRollout: action("pauseRollout", "pause", "Pause a running rollout (devices already in a stage keep it)."),
  resumeRollout: action(
    "resumeRollout",
    "resume",
    "Resume a paused rollout; the failures seen so far are accepted, new ones count against the threshold.",
  ),
  advanceRollout: action(
    "advanceRollout",
    "advance",
    "Widen a running rollout to its next stage (at the last stage: finish it).",
  ),
  cancelRollout: action(
    "cancelRollout",
    "cancel",
    "Cancel a rollout: the devices that have not installed its firmware return to the default.",
  ),
  promoteRollout: action(
    "promoteRollout",
    "promote",
    "Make a finished rollout's firmware the device type's default (allowed with pending or failed devices: " +
      "its counts say how many).",
  ),
  retryRollout: action(
    "retryRollout",
    "retry",
    "Offer the firmware again to the rollout's failed devices: their failure is cleared and they count as pending " +
      "(409 for a draft or cancelled rollout, or one without failed devices).",
  ),
};

/** The route of each rollout action: the one map the server mounts and the client calls through. */
export const rolloutActionRoutes = {
  start: rolloutRoutes.startRollout,
  pause: rolloutRoutes.pauseRollout,
  resume: rolloutRoutes.resumeRollout,
  advance: rolloutRoutes.advanceRollout,
  cancel: rolloutRoutes.cancelRollout,
  promote: rolloutRoutes.promoteRollout,
  retry: rolloutRoutes.retryRollout,
} as const satisfies Record<RolloutAction, Route>;
