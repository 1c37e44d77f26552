import type { DdiFeedback, DeviceAttributes } from "../../../shared/schemas/ddi.ts";
import type { FirmwareSignature } from "../../../shared/schemas/firmware.ts";
import type { DdiActionState } from "../rules/ddi.ts";
import type { PolledDevice } from "./device_api.ts";

/** What a DDI poll links (docs/REQUIREMENTS.md §18). */
export interface DdiPollResult {
  /** The device's open action, linked as deploymentBase. */
  deploymentBase: number | null;
  /** An action being withdrawn (its firmware no longer applies), linked as cancelAction. */
  cancelAction: number | null;
  /** The device has reported no attributes yet: configData is linked. */
  attributesWanted: boolean;
}

/** One of a device's actions, with its firmware (sha1 and md5 null until computed: setDigests). */
export interface DdiAction {
  id: number;
  state: DdiActionState;
  firmware: {
    _id: string;
    name: string;
    size: number;
    sha256: string;
    sha1: string | null;
    md5: string | null;
    /** The release key's signature (docs/REQUIREMENTS.md §20); null: unsigned. */
    signature: FirmwareSignature | null;
  };
}

/** hawkBit DDI's part of the device API (server/db/stores/ddi.ts). */
export interface DdiStore {
  /**
   * A poll: a check-in as §6's (the same writes: lastLoggedIn; with `register`, DEVICE_AUTH=shared, an unknown device
   * is created and audited), then the device's action for the firmware that applies (pin, rollout stage, default) is
   * opened when none is, and an open one whose firmware no longer applies is withdrawn. NotFoundError for an unknown
   * device without `register`. `polled`: the device's row read already (polledDevice; null: there is none).
   */
  ddiPoll(deviceId: string, product: string, register: boolean, polled?: PolledDevice | null): Promise<DdiPollResult>;
  /** One action of the device, or null (unknown, or another device's). */
  ddiAction(deviceId: string, actionId: number): Promise<DdiAction | null>;
  /** Stores a firmware's sha1 and md5 (computed once from its file when it was uploaded before they were kept). */
  setFirmwareDigests(firmwareId: string, digests: { sha1: string; md5: string }): Promise<void>;
  /**
   * Feedback on an action (`deployment`) or on its withdrawal (`cancel`), in one transaction. Deployment feedback on an
   * open action whose firmware still applies is recorded as §6's status report is (rollout counts, pause, advance);
   * closing feedback closes the action. Cancel feedback that ends the withdrawal cancels it. Never refused for its
   * content; NotFoundError for an action that is not the device's.
   */
  ddiFeedback(
    deviceId: string,
    actionId: number,
    kind: "deployment" | "cancel",
    feedback: DdiFeedback,
    product: string,
  ): Promise<void>;
  /** Replaces the device's attributes (audited as device.attributes when they change); NotFoundError when unknown. */
  ddiConfigData(deviceId: string, attributes: DeviceAttributes): Promise<void>;
}
