import type { VersionInfo } from "../../../shared/schemas/device.ts";
import type { Theme } from "../../../shared/schemas/product_type.ts";
import type { ImportedTreatment } from "./treatments.ts";

/** Demo data as plain values: treatments, product types and modules are referred to by name. */
export interface DemoData {
  /** The managed device type's name and the id of the (already stored) firmware to make its default. */
  defaultFirmware: { deviceType: string; firmwareId: string };
  treatments: (ImportedTreatment & { createdAt: string; updatedAt: string })[];
  productTypes: {
    name: string;
    theme: Theme;
    modules: { name: string; isDefault: boolean; treatments: string[] }[];
  }[];
  devices: DemoDevice[];
}

export interface DemoDevice {
  deviceId: string;
  /** In order: the first one creates the device. */
  checkins: { at: string; versionInfo: VersionInfo }[];
  /** What an operator set, if anything: modules by name within the product type, treatments by name. */
  settings?: {
    productType: string | null;
    modules: string[];
    additionalTreatments: string[];
    firmware: string | null;
    updatedAt: string;
  };
}

export interface DemoStore {
  /** True when there is no device, treatment, product type or firmware (operators do not count). */
  isEmpty(): Promise<boolean>;
  /**
   * Writes the demo data in one transaction, through the same write paths as the import, the check-in and the
   * operator routes, then spreads the timestamps as given.
   */
  seed(data: DemoData): Promise<void>;
}
