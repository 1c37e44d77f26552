import type { DeviceType } from "../../../shared/schemas/device_type.ts";
import type { IfMatch } from "./revisions.ts";

export interface DeviceTypeStore {
  /** Ordered by name. */
  list(): Promise<DeviceType[]>;
  get(id: string): Promise<DeviceType | null>;
  /** Creates the managed device type of this PRODUCT (`jeecee_baby_<PRODUCT>`) when it is missing. */
  ensure(product: string): Promise<void>;
  /**
   * Sets (or clears with null) the default firmware, checking in the same transaction that the firmware exists, and
   * moves the revision: NotFoundError for an unknown device type, PreconditionFailedError when `ifMatch` does not
   * hold, InvalidError for an unknown firmware. Answers the type as saved.
   */
  setDefaultFirmware(id: string, firmwareId: string | null, ifMatch?: IfMatch): Promise<DeviceType>;
}
