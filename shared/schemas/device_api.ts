import * as z from "zod";
import { Id } from "./common.ts";
import { VersionInfo } from "./device.ts";
import { Treatment } from "./treatment.ts";

export const CheckinBody = z.strictObject({ versionInfo: VersionInfo });
export type CheckinBody = z.infer<typeof CheckinBody>;

export const DeviceConfig = z.object({
  deviceId: z.string(),
  productType: z.object({ _id: Id, name: z.string(), theme: z.record(z.string(), z.unknown()) }).nullable(),
  modules: z.array(z.object({ _id: Id, name: z.string(), isDefault: z.boolean() })),
  treatments: z.array(Treatment),
  firmware: z.object({ _id: Id, name: z.string(), size: z.number().int(), sha256: z.string() }).nullable(),
});
export type DeviceConfig = z.infer<typeof DeviceConfig>;
