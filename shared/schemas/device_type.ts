import * as z from "zod";
import { Id } from "./common.ts";

export const DeviceType = z.object({
  _id: Id,
  name: z.string(),
  defaultFirmware: Id.nullable(),
});
export type DeviceType = z.infer<typeof DeviceType>;

export const DeviceTypePatch = z.strictObject({
  _id: Id,
  defaultFirmware: Id.nullable(),
});
export type DeviceTypePatch = z.infer<typeof DeviceTypePatch>;

/** The managed device type's name for a PRODUCT setting (SPEC §3). */
export const deviceTypeName = (product: string) => `jeecee_baby_${product}`;
