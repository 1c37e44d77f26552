import type { Firmware } from "../../../shared/schemas/firmware.ts";
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

/** The audit entry of a firmware's upload or deletion: name, size and sha256 of its bytes (and, for an upload, the
 * key whose signature it carried and whether it awaits approval). */
export const firmwareEntry = (
  action: "firmware.upload" | "firmware.delete",
  f: Pick<Firmware, "_id" | "name" | "size" | "sha256"> & Partial<Pick<Firmware, "signature" | "approval">>,
) => ({
  action,
  target: firmwareTarget(f),
  details: {
    size: f.size,
    sha256: f.sha256,
    ...(action === "firmware.upload" && f.approval
      ? {
        signature: f.signature
          ? { keyId: f.signature.keyId, keyName: f.signature.keyName, algorithm: f.signature.algorithm }
          : null,
        approval: f.approval.state,
      }
      : {}),
  },
});

export const firmwareTarget = (f: Pick<Firmware, "_id" | "name">) => ({ type: "firmware", id: f._id, name: f.name });

/** Why a pending firmware cannot be put to a use (a default, a pin, a bulk change, a rollout): the missing approval. */
export const firmwarePending = (name: string, use: string) =>
  `Firmware ${name} is awaiting approval (two-person release): it cannot ${use} until an operator or admin other ` +
  `than its uploader approves it.`;

export const approvalNotPending = (f: Pick<Firmware, "name" | "approval">) =>
  f.approval.state === "approved"
    ? `Firmware ${f.name} was approved already (by ${f.approval.by}, ${f.approval.at}).`
    : `Firmware ${f.name} needs no approval: it was uploaded while RELEASE_APPROVALS was off.`;

export const OWN_UPLOAD =
  "You uploaded this firmware (yourself or with your API token): two-person release needs another operator or admin " +
  "to approve it.";

export const signingKeyGone = (keyName: string) =>
  `Release key ${keyName} was revoked while the file was uploading; nothing was stored. Sign with a current key.`;
