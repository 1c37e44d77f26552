import { CheckinBody, DeviceConfig, EnrollBody, EnrollPending, EnrollToken } from "../schemas/device_api.ts";
import { StatusBody } from "../schemas/rollout.ts";
import { DeviceIdParams } from "./params.ts";
import { binary, empty, errors, headAnswers, json, noBody, route } from "./route.ts";

/**
 * What the fleet calls: with DEVICE_AUTH=shared the DEVICE_API_KEY, with DEVICE_AUTH=token the device's own token
 * (enroll: the enrolment key, docs/REQUIREMENTS.md §11); 503 when the server has no key; 429 while an address that failed to
 * authenticate too often waits (token mode).
 */
export const deviceApiRoutes = {
  deviceEnroll: route({
    name: "deviceEnroll",
    method: "POST",
    path: "/device/:deviceId/enroll",
    auth: "device",
    summary: "DEVICE_AUTH=token: a device enrols with the enrolment key. 202 while it waits for an operator " +
      "(DEVICE_ADMISSION=manual), 201 with its own token (shown only once) when accepted, pre-authorized or " +
      "DEVICE_ADMISSION=auto; 403 rejected; 409 it already holds a token (an operator must reset its credentials); " +
      "409 with DEVICE_AUTH=shared (enrolment is off).",
    params: DeviceIdParams,
    body: json(EnrollBody),
    answers: {
      201: json(EnrollToken),
      202: json(EnrollPending),
      ...errors(400, 401, 403, 409, 413, 415, 429, 503),
    },
  }),
  deviceCheckin: route({
    name: "deviceCheckin",
    method: "POST",
    path: "/device/:deviceId/checkin",
    auth: "device",
    summary: "A device reports its versions (an unknown device is created) and gets its configuration.",
    params: DeviceIdParams,
    body: json(CheckinBody),
    answers: { 200: json(DeviceConfig), ...errors(400, 401, 413, 415, 429, 503) },
  }),
  deviceConfig: route({
    name: "deviceConfig",
    method: "GET",
    path: "/device/:deviceId/config",
    auth: "device",
    summary: "A checked-in device's configuration: product type, modules, treatments, firmware.",
    params: DeviceIdParams,
    body: noBody,
    answers: { 200: json(DeviceConfig), ...errors(400, 401, 404, 429, 503) },
  }),
  deviceStatus: route({
    name: "deviceStatus",
    method: "POST",
    path: "/device/:deviceId/status",
    auth: "device",
    summary: "A device reports its update's progress for the firmware its configuration names (409 for another one).",
    params: DeviceIdParams,
    body: json(StatusBody),
    answers: { 204: empty, ...errors(400, 401, 404, 409, 413, 415, 503) },
  }),
  deviceFirmware: route({
    name: "deviceFirmware",
    method: "GET",
    path: "/device/:deviceId/firmware",
    auth: "device",
    summary: "The device's firmware file: ETag, If-None-Match (304), Range and If-Range (206); with " +
      "FIRMWARE_DOWNLOAD=redirect a 302 to a presigned URL of the bucket.",
    params: DeviceIdParams,
    body: noBody,
    answers: {
      200: binary("application/x-xz"),
      206: binary("application/x-xz"),
      302: empty,
      304: empty,
      ...errors(400, 401, 404, 416, 429, 503),
    },
  }),
  deviceFirmwareHead: route({
    name: "deviceFirmwareHead",
    method: "HEAD",
    path: "/device/:deviceId/firmware",
    auth: "device",
    summary: "The firmware download's headers (size, ETag, Content-Range) without its body.",
    params: DeviceIdParams,
    body: noBody,
    answers: headAnswers,
  }),
};
