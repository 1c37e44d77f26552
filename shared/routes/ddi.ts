import * as z from "zod";
import { DdiActionId, DdiCancel, DdiConfigData, DdiDeployment, DdiFeedback, DdiPoll } from "../schemas/ddi.ts";
import { DeviceId } from "../schemas/device.ts";
import { binary, empty, errors, headAnswers, json, noBody, route } from "./route.ts";

/**
 * hawkBit's Direct Device Integration (docs/REQUIREMENTS.md §18), at the server root beside the device API of §6:
 * `Authorization: TargetToken <device token>` with DEVICE_AUTH=token, `GatewayToken <DEVICE_API_KEY>` with
 * DEVICE_AUTH=shared. The tenant is DDI_TENANT (default DEFAULT), compared case-insensitively; another is 404.
 * Not part of the console's own table (`routes`): the protocol and its tolerance of what devices send are hawkBit's
 * (docs/DECISIONS.md, "hawkBit DDI").
 */
const Tenant = z.string().min(1).max(128);
const Base = { tenant: Tenant, controllerId: DeviceId };
const BaseParams = z.object(Base);
const ActionParams = z.object({ ...Base, actionId: DdiActionId });
const ArtifactParams = z.object({ ...Base, moduleId: DdiActionId, filename: z.string().min(1).max(255) });

const BASE = "/:tenant/controller/v1/:controllerId";
const ARTIFACT = `${BASE}/softwaremodules/:moduleId/artifacts/:filename`;

export const ddiRoutes = {
  ddiPoll: route({
    name: "ddiPoll",
    method: "GET",
    path: BASE,
    root: true,
    auth: "ddi",
    summary: "A device polls (a check-in): when to poll again, and links to its open action (deploymentBase), an " +
      "action being withdrawn (cancelAction) and configData while its attributes are wanted. With " +
      "DEVICE_AUTH=shared an unknown device is registered.",
    params: BaseParams,
    body: noBody,
    answers: { 200: json(DdiPoll), ...errors(400, 401, 404, 429, 503) },
  }),
  ddiDeployment: route({
    name: "ddiDeployment",
    method: "GET",
    path: `${BASE}/deploymentBase/:actionId`,
    root: true,
    auth: "ddi",
    summary: "The deployment of one of the device's actions: one chunk (part os) with one artifact, its hashes and " +
      "absolute download links.",
    params: ActionParams,
    body: noBody,
    answers: { 200: json(DdiDeployment), ...errors(400, 401, 404, 429, 503) },
  }),
  ddiDeploymentFeedback: route({
    name: "ddiDeploymentFeedback",
    method: "POST",
    path: `${BASE}/deploymentBase/:actionId/feedback`,
    root: true,
    auth: "ddi",
    summary: "Progress of an action, recorded as the device's update status (download/downloaded: downloading; " +
      "proceeding: installing; closed+success: installed and the action closed; closed+failure: failed). Always 200.",
    params: ActionParams,
    body: json(DdiFeedback),
    answers: { 200: empty, ...errors(400, 401, 404, 413, 415, 429, 503) },
  }),
  ddiCancel: route({
    name: "ddiCancel",
    method: "GET",
    path: `${BASE}/cancelAction/:actionId`,
    root: true,
    auth: "ddi",
    summary: "An action being withdrawn (its firmware no longer applies): the action to stop.",
    params: ActionParams,
    body: noBody,
    answers: { 200: json(DdiCancel), ...errors(400, 401, 404, 429, 503) },
  }),
  ddiCancelFeedback: route({
    name: "ddiCancelFeedback",
    method: "POST",
    path: `${BASE}/cancelAction/:actionId/feedback`,
    root: true,
    auth: "ddi",
    summary: "The device acknowledges a withdrawal (closed, canceled or rejected ends it). Always 200.",
    params: ActionParams,
    body: json(DdiFeedback),
    answers: { 200: empty, ...errors(400, 401, 404, 413, 415, 429, 503) },
  }),
  ddiConfigData: route({
    name: "ddiConfigData",
    method: "PUT",
    path: `${BASE}/configData`,
    root: true,
    auth: "ddi",
    summary: "The device's attributes (replaced whole): at most 100 names of at most 128 characters, values of at " +
      "most 1024.",
    params: BaseParams,
    body: json(DdiConfigData),
    answers: { 200: empty, ...errors(400, 401, 404, 413, 415, 429, 503) },
  }),
  ddiArtifact: route({
    name: "ddiArtifact",
    method: "GET",
    path: ARTIFACT,
    root: true,
    auth: "ddi",
    summary: "The firmware of one of the device's actions: Range (206); with FIRMWARE_DOWNLOAD=redirect a 302 to " +
      "a presigned URL of the bucket.",
    params: ArtifactParams,
    body: noBody,
    answers: {
      200: binary("application/octet-stream"),
      206: binary("application/octet-stream"),
      302: empty,
      304: empty,
      ...errors(400, 401, 404, 416, 429, 503),
    },
  }),
  ddiArtifactHead: route({
    name: "ddiArtifactHead",
    method: "HEAD",
    path: ARTIFACT,
    root: true,
    auth: "ddi",
    summary: "The artifact download's headers without its body.",
    params: ArtifactParams,
    body: noBody,
    answers: headAnswers,
  }),
};

export const ddiRouteList = Object.values(ddiRoutes);
