import type { Firmware } from "../../../shared/schemas/firmware.ts";

/** A firmware to record: without a signature, approval or uploader it is unsigned, needs no approval, the system's. */
export type NewFirmwareRow =
  & Pick<Firmware, "_id" | "name" | "createdAt" | "size" | "sha256">
  & Partial<Pick<Firmware, "signature" | "approval" | "uploadedBy">>;

/** Firmware rows only: the files are the firmware file store's (a row exists only for a complete file). */
export interface FirmwareStore {
  /** Newest first. */
  list(): Promise<Firmware[]>;
  get(id: string): Promise<Firmware | null>;
  /** Names are unique exactly as written. */
  nameTaken(name: string): Promise<boolean>;
  /** Every firmware id, for sweeping files that no row names. */
  ids(): Promise<string[]>;
  /** The oldest firmware whose bytes have this sha256, other than `exceptId`; null when there is none. */
  firstWithSha256(sha256: string, exceptId?: string): Promise<Firmware | null>;
  /**
   * Records a firmware whose file is in place, uploaded by the operator `uploaderId` (an API token's owner; null: the
   * system): ConflictError when its name is taken, SigningKeyRevokedError when its signature's key was revoked.
   * `digests`: the sha1 and md5 of the bytes (hawkBit DDI), when the upload computed them.
   */
  insert(firmware: NewFirmwareRow, uploaderId?: string | null, digests?: { sha1: string; md5: string }): Promise<void>;
  /**
   * Approves a pending firmware for release (docs/REQUIREMENTS.md §20) with its audit entry: NotFoundError,
   * ConflictError when it is not pending, ForbiddenError for its uploader. The password is the caller's to check.
   */
  approve(id: string, approver: { id: string; email: string }, meaning: string): Promise<Firmware>;
  /**
   * Deletes the row unless the firmware is in use (a device type's default or a device's custom firmware), checked
   * in the same transaction: NotFoundError, ConflictError naming every use. Answers the deleted firmware.
   */
  remove(id: string): Promise<Firmware>;
}
