import { Device, DeviceList, DeviceListQuery, DevicePatch } from "../schemas/device.ts";
import { DeviceIdParams } from "./params.ts";
import { empty, errors, etagHeader, ifMatch, json, noBody, route } from "./route.ts";

export const deviceRoutes = {
  listDevices: route({
    name: "listDevices",
    method: "GET",
    path: "/devices",
    auth: "operator",
    summary: "One page of devices, optionally filtered by a case-insensitive part of the deviceId.",
    query: DeviceListQuery,
    body: noBody,
    answers: { 200: json(DeviceList), ...errors(400, 401) },
  }),
  getDevice: route({
    name: "getDevice",
    method: "GET",
    path: "/devices/:deviceId",
    auth: "operator",
    summary: "One device.",
    params: DeviceIdParams,
    body: noBody,
    answers: { 200: json(Device, etagHeader), ...errors(400, 401, 404) },
  }),
  patchDevice: route({
    name: "patchDevice",
    method: "PATCH",
    path: "/devices/:deviceId",
    auth: "operator",
    scope: "devices:write",
    summary: "Assign a product type, modules, a custom firmware or additional treatments to a device.",
    params: DeviceIdParams,
    headers: ifMatch,
    body: json(DevicePatch),
    answers: { 200: json(Device, etagHeader), ...errors(400, 401, 404, 412, 413, 415) },
  }),
  deleteDevice: route({
    name: "deleteDevice",
    method: "DELETE",
    path: "/devices/:deviceId",
    auth: "operator",
    scope: "devices:write",
    summary: "Forget a device (it comes back at its next check-in).",
    params: DeviceIdParams,
    headers: ifMatch,
    body: noBody,
    answers: { 204: empty, ...errors(400, 401, 404, 412) },
  }),
};
