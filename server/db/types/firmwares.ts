import type { Firmware } from "../../../shared/schemas/firmware.ts";

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
  /** Records a firmware whose file is in place; ConflictError when its name is taken. */
  /** `digests`: the sha1 and md5 of the bytes (hawkBit DDI), when the upload computed them. */
  insert(firmware: Firmware, digests?: { sha1: string; md5: string }): Promise<void>;
  /**
   * Deletes the row unless the firmware is in use (a device type's default or a device's custom firmware), checked
   * in the same transaction: NotFoundError, ConflictError naming every use. Answers the deleted firmware.
   */
  remove(id: string): Promise<Firmware>;
}
