import * as z from "zod";
import { Id, Timestamp } from "./common.ts";
import { ReleaseKeyAlgorithm } from "./release_key.ts";

/**
 * The release key whose signature an upload carried, verified at upload (docs/REQUIREMENTS.md §20): which key, and the
 * signature itself (base64, as sent: Ed25519's 64 bytes, or ECDSA DER or raw r||s) so that a device holding the key
 * (GET release_keys/{id}) can check the bytes again. Null: the upload was not signed.
 */
export const FirmwareSignature = z.object({
  keyId: Id,
  keyName: z.string(),
  algorithm: ReleaseKeyAlgorithm,
  value: z.string(),
});
export type FirmwareSignature = z.infer<typeof FirmwareSignature>;

export const APPROVAL_STATES = ["pending", "approved", "not_required"] as const;
export const ApprovalState = z.enum(APPROVAL_STATES);
export type ApprovalState = z.infer<typeof ApprovalState>;

/** What an approver states, word for word: the meaning of the electronic signature (docs/REQUIREMENTS.md §20). */
export const APPROVAL_MEANING = "approved for release";

/**
 * Two-person release (RELEASE_APPROVALS=1): a firmware uploaded then is `pending` until an operator or admin other than
 * its uploader approves it (`approved`, with who, when and the meaning); one uploaded without the requirement is
 * `not_required`. Only a firmware that is not pending may become a default, a pin, a bulk change or a rollout.
 */
export const FirmwareApproval = z.object({
  state: ApprovalState,
  /** The approver's e-mail (approved only). */
  by: z.string().nullable(),
  at: Timestamp.nullable(),
  meaning: z.string().nullable(),
});
export type FirmwareApproval = z.infer<typeof FirmwareApproval>;

export const Firmware = z.object({
  _id: Id,
  name: z.string(),
  createdAt: Timestamp,
  size: z.number().int(),
  sha256: z.string(),
  signature: FirmwareSignature.nullable(),
  approval: FirmwareApproval,
  /** The e-mail of the operator who uploaded it (an API token's owner); null for firmware older than issue 36. */
  uploadedBy: z.string().nullable(),
});
export type Firmware = z.infer<typeof Firmware>;

/**
 * The answer to an upload: the new firmware, and when the same bytes (sha256) are already stored under another name,
 * that firmware's _id (absent when the bytes are new).
 */
export const UploadedFirmware = Firmware.extend({ duplicateOf: Id.optional() });
export type UploadedFirmware = z.infer<typeof UploadedFirmware>;

/** xz container magic bytes (docs/REQUIREMENTS.md §5). */
export const XZ_MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] as const;
/** SWUpdate image magic: a cpio newc (`070701`) or crc (`070702`) archive; the sixth byte is checked with the rest. */
export const SWU_MAGIC = [0x30, 0x37, 0x30, 0x37, 0x30] as const;

/** The kinds of firmware file the console takes, told apart by the name's extension (any case). */
export const FIRMWARE_FORMATS = {
  xz: { extension: ".xz", magic: XZ_MAGIC, what: "an xz file" },
  swu: { extension: ".swu", magic: SWU_MAGIC, what: "an SWUpdate image (.swu)" },
} as const;
export type FirmwareFormat = keyof typeof FIRMWARE_FORMATS;
/** The main extension (the route table's; tests name sample files with it). */
export const FIRMWARE_EXTENSION = FIRMWARE_FORMATS.xz.extension;

/** The extensions a firmware file's name may end in, as an `accept` list: ".xz,.swu". */
export const FIRMWARE_EXTENSIONS = Object.values(FIRMWARE_FORMATS).map((f) => f.extension).join(",");
/** In words, for messages: ".xz or .swu". */
export const FIRMWARE_EXTENSIONS_TEXT = Object.values(FIRMWARE_FORMATS).map((f) => f.extension).join(" or ");

/** The format a name says (something must come before the extension), or null. */
export function firmwareFormat(name: string): FirmwareFormat | null {
  const lower = name.toLowerCase();
  for (const [format, { extension }] of Object.entries(FIRMWARE_FORMATS)) {
    if (lower.length > extension.length && lower.endsWith(extension)) return format as FirmwareFormat;
  }
  return null;
}

/** The Content-Type a firmware file is served with. */
export const firmwareContentType = (name: string) =>
  firmwareFormat(name) === "swu" ? "application/octet-stream" : "application/x-xz";
/** POST device_firmwares/{id}/approve: the approver's password re-entered (the signature) and its meaning. */
export const ApproveFirmwareBody = z.strictObject({
  password: z.string().min(1, "must not be empty").max(1024, "is at most 1024 characters"),
  meaning: z.literal(APPROVAL_MEANING, { message: `must be "${APPROVAL_MEANING}"` }),
});
export type ApproveFirmwareBody = z.infer<typeof ApproveFirmwareBody>;
