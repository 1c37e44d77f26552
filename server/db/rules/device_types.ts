import { type HoldingRollout, rolloutFirmwareSql } from "./firmware_in_effect.ts";
export const noDeviceType = (id: string) => `No device type with id ${id}.`;

export const noDefaultFirmware = (firmwareId: string) => `defaultFirmware: no firmware with id ${firmwareId}.`;

/**
 * The device-by-device condition "a rollout holds device d" (any holding rollout: after a change of the default, the
 * rollouts shipping the old one hold their devices too), or null when no rollout holds any device.
 */
export function heldByRolloutSql(
  rollouts: readonly HoldingRollout[],
  p: (v: string | number) => string,
  bucketOf: (id: string) => string,
): string | null {
  return rollouts.length ? `CAST(${rolloutFirmwareSql(rollouts, p, bucketOf)} AS TEXT) IS NOT NULL` : null;
}
