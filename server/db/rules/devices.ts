/** The rules of an operator's device patch, shared by every engine: each engine looks up the facts, these decide. */
import { InvalidError } from "../errors.ts";
/** The settings an operator patch may change (each one left out stays as it is). */
export interface DeviceChanges {
  productTypeId?: string | null;
  moduleIds?: string[];
  firmware?: string | null;
  additionalTreatmentIds?: string[];
}

export const noDevice = (deviceId: string) => `No device with deviceId ${deviceId}.`;

/** A device as the target of an audit entry. */
export const deviceTarget = (deviceId: string) => ({ type: "device", id: deviceId, name: deviceId });

/**
 * The details of a device.update entry: what was sent, and what the changed fields held before (a new product type
 * clears the modules: they are in `before` too), so a history reads "Custom firmware: none → fw-2.5.0.xz".
 */
export function deviceUpdateDetails(
  device: {
    productTypeId: string | null;
    moduleIds: string[];
    firmware: string | null;
    additionalTreatmentIds: string[];
  },
  patch: DeviceChanges,
) {
  const before: Record<string, unknown> = {};
  for (const key of ["productTypeId", "moduleIds", "firmware", "additionalTreatmentIds"] as const) {
    if (patch[key] !== undefined || (key === "moduleIds" && patch.productTypeId !== undefined)) {
      before[key] = device[key];
    }
  }
  return { changes: patch, before };
}

/** What the engine found, inside the patch's transaction, about the ids the patch names. */
export interface DevicePatchFacts {
  /** The patch's productTypeId is null, absent or a product type. */
  productTypeExists: boolean;
  /** The patch's firmware is null, absent or a firmware. */
  firmwareExists: boolean;
  /** The first of additionalTreatmentIds that is not a treatment (null when all are, or the list is absent). */
  missingTreatment: string | null;
  /** The first of moduleIds that is not a module. */
  missingModule: string | null;
  /** The first of moduleIds that is not a module of patchedProductType() (every module when that is null). */
  foreignModule: string | null;
}

/** The device's product type once the patch is applied. */
export function patchedProductType(current: string | null, changes: DeviceChanges): string | null {
  return changes.productTypeId !== undefined ? changes.productTypeId : current;
}

/**
 * The changes to write, or InvalidError naming the first field whose id does not fit (in the order productTypeId,
 * firmware, additionalTreatmentIds, moduleIds). A product type change without moduleIds clears the modules: the old
 * type's modules cannot belong to the new type.
 */
export function devicePatchWrites(
  currentProductTypeId: string | null,
  patch: DeviceChanges,
  facts: DevicePatchFacts,
): DeviceChanges {
  const changes: DeviceChanges = {};
  if (patch.productTypeId !== undefined) {
    if (patch.productTypeId !== null && !facts.productTypeExists) {
      throw new InvalidError(`productTypeId: no product type with id ${patch.productTypeId}.`);
    }
    changes.productTypeId = patch.productTypeId;
  }
  if (patch.firmware !== undefined) {
    if (patch.firmware !== null && !facts.firmwareExists) {
      throw new InvalidError(`firmware: no firmware with id ${patch.firmware}.`);
    }
    changes.firmware = patch.firmware;
  }
  if (patch.additionalTreatmentIds !== undefined) {
    if (facts.missingTreatment !== null) {
      throw new InvalidError(`additionalTreatmentIds: no treatment with id ${facts.missingTreatment}.`);
    }
    changes.additionalTreatmentIds = patch.additionalTreatmentIds;
  }
  const productTypeId = patchedProductType(currentProductTypeId, patch);
  if (patch.moduleIds !== undefined) {
    if (facts.missingModule !== null) throw new InvalidError(`moduleIds: no module with id ${facts.missingModule}.`);
    if (facts.foreignModule !== null) {
      throw new InvalidError(
        productTypeId === null
          ? `moduleIds: the device has no product type, so it cannot enable module ${facts.foreignModule}.`
          : `moduleIds: module ${facts.foreignModule} is not a module of product type ${productTypeId}.`,
      );
    }
    changes.moduleIds = patch.moduleIds;
  } else if (productTypeId !== currentProductTypeId) {
    changes.moduleIds = [];
  }
  return changes;
}
