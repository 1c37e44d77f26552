import type { DefaultReach, DeviceType } from "../../../shared/schemas/device_type.ts";
import type { IfMatch } from "./revisions.ts";

export interface DeviceTypeStore {
  /** Ordered by name. */
  list(): Promise<DeviceType[]>;
  get(id: string): Promise<DeviceType | null>;
  /**
   * How many devices a default of this device type reaches (none but the managed type of `product` reaches any):
   * those without a custom firmware that no rollout holds (rules/firmware_in_effect.ts holdsSql); null for an unknown id.
   */
  reach(id: string, product: string): Promise<DefaultReach | null>;
  /** Creates the managed device type of this PRODUCT (`jeecee_baby_<PRODUCT>`) when it is missing. */
  ensure(product: string): Promise<void>;
  /**
   * Sets (or clears with null) the default firmware, checking in the same transaction that the firmware exists, and
   * moves the revision: NotFoundError for an unknown device type, PreconditionFailedError when `ifMatch` does not
   * hold, InvalidError for an unknown firmware. Answers the type as saved.
   */
  setDefaultFirmware(id: string, firmwareId: string | null, ifMatch?: IfMatch): Promise<DeviceType>;
}
