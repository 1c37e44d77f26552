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

/** The managed device types are named jeecee_baby_<PRODUCT>. */
export const MANAGED_DEVICE_TYPE_PREFIX = "jeecee_baby_";

/** The managed device type's name for a PRODUCT setting. */
export const deviceTypeName = (product: string) => `${MANAGED_DEVICE_TYPE_PREFIX}${product}`;

/** True for a managed device type's name (whatever its PRODUCT). */
export const isManagedDeviceType = (name: string) => name.startsWith(MANAGED_DEVICE_TYPE_PREFIX);
