/** Bulk changes of devices: their refusals and audit entries. */
import type { DeviceBulkSet } from "../../../shared/schemas/device.ts";
import type { NewAuditEntry } from "./audit.ts";
import { deviceTarget } from "./devices.ts";

/** Bulk change refusals. */
export const noBulkDevice = (deviceId: string) => `deviceIds: no device with deviceId ${deviceId}.`;

/** The audit entries of a bulk change: one `device.bulk_update` per device, with what was set and how many changed. */
export function* auditEntries(deviceIds: readonly string[], set: DeviceBulkSet): Generator<NewAuditEntry> {
  for (const id of deviceIds) {
    yield {
      action: "device.bulk_update",
      target: deviceTarget(id),
      details: { changes: set, devices: deviceIds.length },
    };
  }
}
