import * as z from "zod";
import {
  ApproveFirmwareBody,
  Firmware,
  FIRMWARE_EXTENSION,
  FIRMWARE_EXTENSIONS_TEXT,
  FIRMWARE_FORMATS,
  firmwareFormat,
  UploadedFirmware,
} from "../schemas/firmware.ts";
import { KEY_ID_FIELD, SIGNATURE_FIELD } from "../schemas/release_key.ts";
import { IdParams } from "./params.ts";

/**
 * A firmware file's name in a path: a base name ending in a firmware extension (else 400 naming `name`); the server
 * then checks it as it checks a form upload's file name (the text rule, a name taken: 409).
 */
const FirmwareNameParams = z.object({
  name: z.string().max(255).refine(
    (name) => !/[\\/]/.test(name) && firmwareFormat(name) !== null && firmwareFormat(name.trim()) !== null,
    `must be a file name (no path) ending in ${FIRMWARE_EXTENSIONS_TEXT}`,
  ),
});
import { binary, empty, errors, json, multipart, noBody, rawFile, route } from "./route.ts";

export const firmwareRoutes = {
  listFirmwares: route({
    name: "listFirmwares",
    method: "GET",
    path: "/device_firmwares",
    auth: "operator",
    summary: "The stored firmware files.",
    body: noBody,
    answers: { 200: json(z.array(Firmware)), ...errors(401) },
  }),
  uploadFirmware: route({
    name: "uploadFirmware",
    method: "POST",
    path: "/device_firmwares",
    auth: "operator",
    scope: "firmware:write",
    summary: "Upload a firmware file, xz or an SWUpdate image (.swu) (streamed and checked whole; names are unique; " +
      "the same bytes under another name are answered with duplicateOf). Optional form fields before the file: " +
      "`signature` (base64, over the file's SHA-256 digest) and `keyId` (a release key; without it the unrevoked keys " +
      "are tried): a signature that does not verify, or none under REQUIRE_SIGNED_FIRMWARE=1, is 422 " +
      "invalid_signature and nothing is stored. Under RELEASE_APPROVALS=1 the new firmware is pending until another " +
      "operator approves it.",
    body: multipart(FIRMWARE_EXTENSION, "file", [FIRMWARE_FORMATS.swu.extension]),
    answers: { 201: json(UploadedFirmware), ...errors(400, 401, 408, 409, 411, 413, 415, 422, 503, 507) },
  }),
  putFirmware: route({
    name: "putFirmware",
    method: "PUT",
    path: "/device_firmwares/files/:name",
    auth: "operator",
    scope: "firmware:write",
    summary: "Upload a firmware file as the raw body (application/octet-stream or no Content-Type, with its " +
      "Content-Length), named by the path: `curl -T app.xz .../device_firmwares/files/`. The same checks, answers and audit entry as the form " +
      "upload, at less CPU per byte (no multipart parsing): for the CLI and scripts. The signature and its key, when " +
      "sent, are the headers X-Firmware-Signature and X-Firmware-Key-Id.",
    params: FirmwareNameParams,
    headers: {
      "X-Firmware-Signature": "base64, a release key's signature over the file's SHA-256 digest (optional)",
      "X-Firmware-Key-Id": "the release key that made it (optional; without it the unrevoked keys are tried)",
    },
    body: rawFile(FIRMWARE_EXTENSION, [FIRMWARE_FORMATS.swu.extension], {
      [SIGNATURE_FIELD]: "X-Firmware-Signature",
      [KEY_ID_FIELD]: "X-Firmware-Key-Id",
    }),
    answers: { 201: json(UploadedFirmware), ...errors(400, 401, 408, 409, 411, 413, 415, 422, 503, 507) },
  }),
  firmwareFile: route({
    name: "firmwareFile",
    method: "GET",
    path: "/device_firmwares/:id/file",
    auth: "operator",
    summary: "Download a firmware file.",
    params: IdParams,
    body: noBody,
    answers: { 200: binary("application/x-xz"), ...errors(400, 401, 404, 503) },
  }),
  approveFirmware: route({
    name: "approveFirmware",
    method: "POST",
    path: "/device_firmwares/:id/approve",
    auth: "operator",
    role: "operator",
    scope: null,
    summary: "Approve a pending firmware for release (two-person release): an operator or admin other than its " +
      "uploader, signed in (no API token), re-enters their password (401 invalid_password when wrong, throttled " +
      'like sign-in: 429) and states the meaning "approved for release". 403 for its uploader; 409 when it is ' +
      "not pending.",
    params: IdParams,
    body: json(ApproveFirmwareBody),
    answers: { 200: json(Firmware), ...errors(400, 401, 403, 404, 409, 413, 415, 429, 503) },
  }),
  deleteFirmware: route({
    name: "deleteFirmware",
    method: "DELETE",
    path: "/device_firmwares/:id",
    auth: "operator",
    scope: "firmware:write",
    summary: "Delete a firmware that no device type or device uses.",
    params: IdParams,
    body: noBody,
    answers: { 204: empty, ...errors(400, 401, 404, 409, 503) },
  }),
};
