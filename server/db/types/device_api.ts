import type { DdiStore } from "./ddi.ts";
import type { VersionInfo } from "../../../shared/schemas/device.ts";
import type { DeviceConfig } from "../../../shared/schemas/device_api.ts";
import type { Admission } from "../../../shared/schemas/device.ts";
import type { EnrollOutcome } from "../rules/admission.ts";
import type { StatusBody } from "../../../shared/schemas/rollout.ts";
import type { FirmwareInEffect } from "../../../shared/schemas/device.ts";

export type FirmwareRef = NonNullable<DeviceConfig["firmware"]>;

/**
 * A device's row as a poll's one statement reads it (db/stores/device_api.ts quietDevice): what a quiet answer reads
 * of the device's own row, the configuration generation read beside it, and whether it has rows of its own an answer
 * reads (then its answer is held per device, not shared: docs/DECISIONS.md, "Quiet answers shared by the devices of
 * one configuration").
 */
export interface QuietDevice {
  device_id: string;
  product_type_id: string | null;
  firmware_id: string | null;
  update_status: string | null;
  no_attributes: number | boolean;
  gen: number;
  /** It has rows of its own a configuration reads: enabled modules (device_modules) or treatments of its own. */
  own_config: number | boolean;
  /** Unpinned and part of a rollout that may offer it firmware (stores/rollouts.ts IN_OFFERING_ROLLOUT). */
  in_rollout: number | boolean;
  /** It has a current DDI action (open or being withdrawn). */
  has_action: number | boolean;
}

/** The same row as the token guard reads it (polledDevice): with the device's credential, for the poll it admits. */
export interface PolledDevice extends QuietDevice {
  admission: Admission;
  token_hash: string | null;
  version_info: string | null;
  /** Seen before, with no rollout to join: quiet when its version info is the one the check-in sends. */
  quiet: number | boolean;
}

/**
 * What the fleet calls. `product` is the server's PRODUCT: a device's default firmware is the one of the managed
 * device type `jeecee_baby_<PRODUCT>`.
 */
export interface DeviceApiStore extends DdiStore {
  /**
   * Records a check-in (creating the device when unknown, else setting only lastLoggedIn and versionInfo; updatedAt
   * moves only when the version info changed) and answers the configuration it left, in the same transaction.
   * `polled`: the device's row read already (polledDevice; null: there is none), else read here.
   */
  checkin(
    deviceId: string,
    versionInfo: VersionInfo,
    product: string,
    polled?: PolledDevice | null,
  ): Promise<DeviceConfig>;
  /**
   * DEVICE_AUTH=token's check-in: like checkin, but never creates a device (only an enrolled one has a token);
   * NotFoundError when the device is gone (deleted since its token was checked).
   */
  checkinKnown(
    deviceId: string,
    versionInfo: VersionInfo,
    product: string,
    polled?: PolledDevice,
  ): Promise<DeviceConfig>;
  /**
   * The device's credential with what its poll's first statement reads, in one statement (null: unknown): the token
   * guard of a check-in or DDI poll checks the token with it and hands it to checkinKnown or ddiPoll, so a quiet poll
   * costs that one statement. Read at each request: a revoked or reset token is refused by the next poll.
   */
  polledDevice(deviceId: string): Promise<PolledDevice | null>;
  /**
   * Whether a poll's row is read by a statement that waits its turn, shared with other polls (PostgreSQL): a lean
   * guard of DEVICE_AUTH=shared then has it read (polledDevice) before the request's scope is entered
   * (server/request_scope.ts); elsewhere the check-in reads it itself, in its one call.
   */
  readonly pollsWait: boolean;
  /**
   * The device's admission and the sha256 (hex) of its token, or null when unknown: one lookup by primary key, the
   * credential of a token-authenticated device call other than a poll (polledDevice); the HTTP side compares the
   * hashes in constant time.
   */
  credentials(deviceId: string): Promise<{ admission: Admission; tokenHash: string | null } | null>;
  /**
   * An enrolment (docs/REQUIREMENTS.md §11) in one transaction, decided by rules/admission.ts: records an unknown device (pending,
   * or accepted with `auto`), records the version info, and stores `tokenHash` as the device's token when one is
   * issued ("issued"); "rejected" and "has_token" change nothing.
   */
  enroll(deviceId: string, versionInfo: VersionInfo, tokenHash: string, auto: boolean): Promise<EnrollOutcome>;
  /** The device's configuration (rules/device_config.ts), or null when the device is unknown. */
  config(deviceId: string, product: string): Promise<DeviceConfig | null>;
  /** The firmware that applies (custom, else the managed type's default, else null); undefined for an unknown device. */
  firmware(deviceId: string, product: string): Promise<FirmwareRef | null | undefined>;
  /**
   * The firmware in effect and where it comes from (custom, a rollout's stage with that rollout, the default), decided
   * as config resolution decides; null for an unknown device.
   */
  firmwareInEffect(deviceId: string, product: string): Promise<FirmwareInEffect | null>;
  /**
   * Records an update report (docs/REQUIREMENTS.md §13) as the device's `update` and, when a rollout offers the firmware, in that
   * rollout's counts, then lets the rollout pause, advance or finish, all in one transaction: NotFoundError for an
   * unknown device, ConflictError when the firmware is not the one the device's configuration names.
   */
  status(deviceId: string, report: StatusBody, product: string): Promise<void>;
  /**
   * Writes the last-seen times that check-ins and polls which changed nothing left to the next batch (they are
   * written within a second anyway; docs/DECISIONS.md, "Polls that change nothing cost no write").
   */
  flushSeen(): Promise<void>;
}
