import * as z from "zod";
import { Etag, Id } from "./common.ts";

export const DeviceType = z.object({
  _id: Id,
  name: z.string(),
  defaultFirmware: Id.nullable(),
  etag: Etag,
});
export type DeviceType = z.infer<typeof DeviceType>;

export const DeviceTypePatch = z.strictObject({
  _id: Id,
  defaultFirmware: Id.nullable(),
});
export type DeviceTypePatch = z.infer<typeof DeviceTypePatch>;

/**
 * GET device_types/{id}/reach: how many devices take this device type's default firmware at their next check-in
 * (`devices`: no custom firmware and no rollout holding them), and how many a default does not reach: `custom`
 * (pinned) and `rollout` (a rollout's stage decides their firmware). `total`: every device. A device type other than
 * the managed one reaches none.
 */
export const DefaultReach = z.object({
  total: z.number().int(),
  devices: z.number().int(),
  custom: z.number().int(),
  rollout: z.number().int(),
});
export type DefaultReach = z.infer<typeof DefaultReach>;

/** The managed device types are named jeecee_baby_<PRODUCT>. */
export const MANAGED_DEVICE_TYPE_PREFIX = "jeecee_baby_";

/** The managed device type's name for a PRODUCT setting. */
export const deviceTypeName = (product: string) => `${MANAGED_DEVICE_TYPE_PREFIX}${product}`;

/** True for a managed device type's name (whatever its PRODUCT). */
export const isManagedDeviceType = (name: string) => name.startsWith(MANAGED_DEVICE_TYPE_PREFIX);
