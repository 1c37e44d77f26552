/**
 * What the device screen's and the bulk change's confirmations say: the effect on devices, and buttons named for the
 * action and for leaving things as they are (issue 34; the rollout and firmware confirmations do the same).
 */

export interface ConfirmText {
  header: string;
  message: string;
  accept: string;
  keep: string;
}

const devicesText = (n: number) => `${n} device${n === 1 ? "" : "s"}`;

/** Setting or clearing a device's custom firmware (`next` null: back to the default). Names, not ids. */
export function firmwareConfirm(deviceId: string, next: string | null, before: string | null): ConfirmText {
  const now = before ?? "the default device firmware";
  if (next === null) {
    return {
      header: before === null
        ? `Clear custom firmware on device ${deviceId}?`
        : `Clear custom firmware ${before} on device ${deviceId}?`,
      message: `Device ${deviceId} will install the default device firmware at its next check-in instead of ${now}.`,
      accept: "Clear custom firmware",
      keep: "Keep current",
    };
  }
  return {
    header: `Set custom firmware ${next} on device ${deviceId}?`,
    message: `It will install ${next} at its next check-in instead of ${now}.`,
    accept: "Set firmware",
    keep: "Keep current",
  };
}

/** Adding one additional treatment to a device, or removing it. */
export function treatmentConfirm(kind: "add" | "remove", deviceId: string, name: string): ConfirmText {
  return kind === "add"
    ? {
      header: `Add treatment ${name} to device ${deviceId}?`,
      message: `Device ${deviceId} will offer ${name} after its next check-in.`,
      accept: "Add to device",
      keep: "Don't add",
    }
    : {
      header: `Remove treatment ${name} from device ${deviceId}?`,
      message: `Device ${deviceId} will no longer offer ${name} after its next check-in.`,
      accept: "Remove from device",
      keep: "Keep treatment",
    };
}

/** The product type confirmation keeps the specification's header and question; its buttons say what they do. */
export const PRODUCT_TYPE_BUTTONS = { accept: "Change product type", keep: "Keep current" } as const;

/**
 * The bulk change's confirmation: `count` is the number of devices the server's selection holds now (null while it is
 * being counted: no number is guessed, and the change cannot be confirmed yet).
 */
export function bulkConfirm(count: number | null): ConfirmText {
  if (count === null) {
    return {
      header: "Change the selected devices?",
      message: "Counting the devices this changes…",
      accept: "Change devices",
      keep: "Back to the change",
    };
  }
  const devices = devicesText(count);
  return {
    header: `Change ${devices}?`,
    message: `This changes what ${devices} run${count === 1 ? "s" : ""} from their next check-in, in one step ` +
      "(if any change is refused, none is made):",
    accept: `Change ${devices}`,
    keep: "Back to the change",
  };
}
