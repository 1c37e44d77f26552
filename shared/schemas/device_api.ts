import * as z from "zod";
import { Id } from "./common.ts";
import { VersionInfo } from "./device.ts";
import { FirmwareSignature } from "./firmware.ts";
import { Treatment } from "./treatment.ts";

export const CheckinBody = z.strictObject({ versionInfo: VersionInfo });
export type CheckinBody = z.infer<typeof CheckinBody>;

/** docs/REQUIREMENTS.md §11: a device enrols with the factory's enrolment key (DEVICE_AUTH=token). */
export const EnrollBody = z.strictObject({ versionInfo: VersionInfo });
export type EnrollBody = z.infer<typeof EnrollBody>;

/** 202: the device waits for an operator to accept it. */
export const EnrollPending = z.object({ status: z.literal("pending") });
/** 201: the device's own token, shown only this once. */
export const EnrollToken = z.object({ token: z.string() });
export type EnrollToken = z.infer<typeof EnrollToken>;

export const DeviceConfig = z.object({
  deviceId: z.string(),
  productType: z.object({ _id: Id, name: z.string(), theme: z.record(z.string(), z.unknown()) }).nullable(),
  modules: z.array(z.object({ _id: Id, name: z.string(), isDefault: z.boolean() })),
  treatments: z.array(Treatment),
  firmware: z.object({
    _id: Id,
    name: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    /** The release key's signature over the file's SHA-256 digest (docs/REQUIREMENTS.md §20), or null: unsigned. */
    signature: FirmwareSignature.nullable(),
  }).nullable(),
});
export type DeviceConfig = z.infer<typeof DeviceConfig>;
