import * as z from "zod";
import { DeviceType, DeviceTypePatch } from "../schemas/device_type.ts";
import { IdParams } from "./params.ts";
import { errors, json, noBody, route } from "./route.ts";

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
  patchDeviceType: route({
    name: "patchDeviceType",
    method: "PATCH",
    path: "/device_types/:id",
    auth: "operator",
    summary: "Set or clear a device type's default firmware.",
    params: IdParams,
    body: json(DeviceTypePatch),
    answers: { 200: json(DeviceType), ...errors(400, 401, 404, 413, 415) },
  }),
};
