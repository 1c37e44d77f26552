/** Firmware row rules and messages, shared by every engine. */

export const noFirmware = (id: string) => `No firmware with id ${id}.`;

export const firmwareNameTaken = (name: string) =>
  `A firmware named ${name} was already uploaded; delete it first or rename the file.`;

export interface FirmwareUse {
  /** Names of the device types that have it as their default, ordered. */
  defaultOf: string[];
  /** How many devices have it as their custom firmware. */
  devices: number;
  /** Names of the draft, running or paused rollouts that ship it, ordered. */
  rollouts: string[];
}

export const isInUse = (use: FirmwareUse) => use.defaultOf.length > 0 || use.devices > 0 || use.rollouts.length > 0;

export function firmwareInUse(name: string, use: FirmwareUse): string {
  const reasons: string[] = [];
  if (use.defaultOf.length) reasons.push(`it is the default firmware of device type ${use.defaultOf.join(", ")}`);
  if (use.devices) {
    reasons.push(`it is the custom firmware of ${use.devices} device${use.devices === 1 ? "" : "s"}`);
  }
  if (use.rollouts.length) {
    reasons.push(
      `rollout${use.rollouts.length === 1 ? "" : "s"} ${use.rollouts.join(", ")} ship${
        use.rollouts.length === 1 ? "s" : ""
      } it (cancel ${use.rollouts.length === 1 ? "it" : "them"} first)`,
    );
  }
  return `Firmware ${name} cannot be deleted: ${reasons.join(" and ")}.`;
}

/** The audit entry of a firmware's upload or deletion: name, size and sha256 of its bytes. */
export const firmwareEntry = (
  action: "firmware.upload" | "firmware.delete",
  f: { _id: string; name: string; size: number; sha256: string },
) => ({
  action,
  target: { type: "firmware", id: f._id, name: f.name },
  details: { size: f.size, sha256: f.sha256 },
});
