import type { VersionInfo } from "../../../shared/schemas/device.ts";
import type { DeviceConfig } from "../../../shared/schemas/device_api.ts";
import type { StatusBody } from "../../../shared/schemas/rollout.ts";

export type FirmwareRef = NonNullable<DeviceConfig["firmware"]>;

/**
 * What the fleet calls. `product` is the server's PRODUCT: a device's default firmware is the one of the managed
 * device type `jeecee_baby_<PRODUCT>`.
 */
export interface DeviceApiStore {
  /**
   * Records a check-in (creating the device when unknown, else setting only lastLoggedIn and versionInfo; updatedAt
   * moves only when the version info changed) and answers the configuration it left, in the same transaction.
   */
  checkin(deviceId: string, versionInfo: VersionInfo, product: string): Promise<DeviceConfig>;
  /** The device's configuration (rules/device_config.ts), or null when the device is unknown. */
  config(deviceId: string, product: string): Promise<DeviceConfig | null>;
  /** The firmware that applies (custom, else the managed type's default, else null); undefined for an unknown device. */
  firmware(deviceId: string, product: string): Promise<FirmwareRef | null | undefined>;
  /**
   * Records an update report (CONTRACT §13) as the device's `update` and, when a rollout offers the firmware, in that
   * rollout's counts, then lets the rollout pause, advance or finish, all in one transaction: NotFoundError for an
   * unknown device, ConflictError when the firmware is not the one the device's configuration names.
   */
  status(deviceId: string, report: StatusBody, product: string): Promise<void>;
}
