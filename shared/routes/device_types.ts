import * as z from "zod";
import { DefaultReach, DeviceType, DeviceTypePatch } from "../schemas/device_type.ts";
import { IdParams } from "./params.ts";
import { errors, etagHeader, ifMatch, json, noBody, route } from "./route.ts";

export const deviceTypeRoutes = {
  listDeviceTypes: route({
    name: "listDeviceTypes",
    method: "GET",
    path: "/device_types",
    auth: "operator",
    summary: "The device types and their default firmware.",
    body: noBody,
    answers: { 200: json(z.array(DeviceType)), ...errors(401) },
  }),
  getDeviceType: route({
    name: "getDeviceType",
    method: "GET",
    path: "/device_types/:id",
    auth: "operator",
    summary: "One device type.",
    params: IdParams,
    body: noBody,
    answers: { 200: json(DeviceType, etagHeader), ...errors(400, 401, 404) },
  }),
  deviceTypeReach: route({
    name: "deviceTypeReach",
    method: "GET",
    path: "/device_types/:id/reach",
    auth: "operator",
    summary: "How many devices a default firmware of this device type reaches at their next check-in (no custom " +
      "firmware, no rollout holding them), and how many are pinned or held by a rollout.",
    params: IdParams,
    body: noBody,
    answers: { 200: json(DefaultReach), ...errors(400, 401, 404) },
  }),
  patchDeviceType: route({
    name: "patchDeviceType",
    method: "PATCH",
    path: "/device_types/:id",
    auth: "operator",
    scope: "firmware:write",
    summary: "Set or clear a device type's default firmware.",
    params: IdParams,
    headers: ifMatch,
    body: json(DeviceTypePatch),
    answers: { 200: json(DeviceType, etagHeader), ...errors(400, 401, 404, 409, 412, 413, 415) },
  }),
};
