import type { Device, DevicePatch } from "../../../../shared/schemas/mod.ts";

/** What each card of the device detail gets: the device, whether a save runs, and save (resolves true on success). */
export interface DeviceCardProps {
  device: Device;
  busy: boolean;
  save: (patch: Omit<DevicePatch, "deviceId">) => Promise<boolean>;
}
