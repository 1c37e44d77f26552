/**
 * Firmwares: a row and its file, kept together (server/firmware_storage.ts: a row exists only for a complete file).
 * Upload: the body is checked as it streams (name, then by its extension the xz magic and the whole xz stream, or the
 * whole cpio archive of an SWUpdate image), the file committed, then the row;
 * delete: the row in its transaction (its audit entry with it), then the file.
 */
import * as metrics from "../metrics.ts";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import { KEY_ID_FIELD, type ReleaseKey, SIGNATURE_FIELD } from "../../shared/schemas/release_key.ts";
import type { AppContext } from "../context.ts";
import type { Operator } from "../db/stores.ts";
import { SigningKeyRevokedError } from "../db/errors.ts";
import { approvalNotPending, noFirmware, OWN_UPLOAD } from "../db/rules/firmwares.ts";
import { conflict, forbidden, invalidSignature, notFound } from "../errors.ts";
import { signatureBytes, signingKey } from "../auth/release_signatures.ts";
import type { FirmwarePut } from "../files/firmware_files.ts";
import { checkFirmwareName, duplicateName, firmwareContentRules, storeFirmware } from "../firmware_storage.ts";
import type { ReceivedFile, ReceiveOptions } from "../lib/upload.ts";

/** Receives the request's file with the options given (the route binds it to its request: lib/upload.ts). */
export type Receive = (opts: ReceiveOptions<FirmwarePut>) => Promise<ReceivedFile<FirmwarePut>>;

export type FirmwaresService = ReturnType<typeof firmwaresService>;

export function firmwaresService(ctx: AppContext) {
  const { files } = ctx;
  const { firmwares } = ctx.stores;
  const received = metrics.uploadBytes.labels({ kind: "firmware" });

  /** The signature fields of an upload, checked for form (not yet verified); null: unsigned. */
  const signatureOf = (fields: Record<string, string>): { bytes: Uint8Array; keyId: string | null } | null => {
    const text = fields[SIGNATURE_FIELD];
    const keyId = fields[KEY_ID_FIELD]?.trim() || null;
    if (text === undefined || text.trim() === "") {
      if (keyId !== null) {
        throw invalidSignature(`${KEY_ID_FIELD} was sent without a ${SIGNATURE_FIELD}; nothing was stored.`);
      }
      if (ctx.config.REQUIRE_SIGNED_FIRMWARE === "1") {
        throw invalidSignature(
          "This server accepts only signed firmware (REQUIRE_SIGNED_FIRMWARE=1): send the `signature` field (base64, " +
            "a release key's signature over the file's SHA-256 digest) before the file; nothing was stored.",
        );
      }
      return null;
    }
    const bytes = signatureBytes(text);
    if (!bytes) throw invalidSignature(`${SIGNATURE_FIELD}: is not base64; nothing was stored.`);
    return { bytes, keyId };
  };

  /** The key that made the signature over the digest (sha256 hex), or 422 invalid_signature. */
  const verifySignature = async (
    sent: { bytes: Uint8Array; keyId: string | null } | null,
    sha256: string,
  ): Promise<Firmware["signature"]> => {
    if (!sent) return null;
    const digest = Buffer.from(sha256, "hex");
    let keys: ReleaseKey[];
    if (sent.keyId !== null) {
      const key = await ctx.stores.releaseKeys.get(sent.keyId);
      if (!key) throw invalidSignature(`${KEY_ID_FIELD}: no release key with id ${sent.keyId}; nothing was stored.`);
      if (key.revokedAt !== null) {
        throw invalidSignature(
          `Release key ${key.name} was revoked (${key.revokedAt}): it verifies no new upload; nothing was stored.`,
        );
      }
      keys = [key];
    } else {
      keys = await ctx.stores.releaseKeys.active();
      if (keys.length === 0) {
        throw invalidSignature(
          "The upload is signed but no release key is registered (or all are revoked); nothing was stored.",
        );
      }
    }
    const key = signingKey(keys, digest, sent.bytes);
    if (!key) {
      throw invalidSignature(
        (keys.length === 1
          ? `The signature is not release key ${keys[0].name}'s`
          : "No registered release key made the signature") +
          " over this file's SHA-256 digest (signed other bytes, or with another key); nothing was stored.",
      );
    }
    return {
      keyId: key._id,
      keyName: key.name,
      algorithm: key.algorithm,
      value: Buffer.from(sent.bytes).toString("base64"),
    };
  };

  return {
    list: () => firmwares.list(),

    /** The firmware, or 404. */
    async get(id: string): Promise<Firmware> {
      const firmware = await firmwares.get(id);
      if (!firmware) throw notFound(noFirmware(id));
      return firmware;
    },

    /**
     * A new firmware from an upload by `uploader` (an API token's owner); `duplicateOf` names a firmware already
     * holding the same bytes. A signature is verified with the digest the upload computed (docs/REQUIREMENTS.md §20).
     */
    async upload(
      receive: Receive,
      uploader: Pick<Operator, "id" | "email">,
    ): Promise<Firmware & { duplicateOf?: string }> {
      // A name is refused as soon as the part's headers arrive, before a byte is written: against the names stored
      // when the upload began (one taken while the body streams is caught below, and by the insert).
      const taken = new Set((await firmwares.list()).map((f) => f.name));
      const file = await receive({
        sink: () => files.put(),
        idleMs: ctx.config.BODY_IDLE_SECONDS * 1000,
        received,
        maxBytes: ctx.config.MAX_FIRMWARE_BYTES,
        limitName: "MAX_FIRMWARE_BYTES",
        checkName: (name) => {
          checkFirmwareName(name);
          if (taken.has(name)) throw duplicateName(name);
        },
        fields: [SIGNATURE_FIELD, KEY_ID_FIELD],
        // Refused before a byte is written: no signature under the requirement, a signature that is not base64.
        checkFields: (fields) => void signatureOf(fields),
        // The whole file is tested as it arrives, by its format; a refusal is known before any row is written.
        forName: firmwareContentRules,
      });
      // The name may have been taken while the body streamed: storeFirmware's insert catches that too.
      if (await firmwares.nameTaken(file.name)) {
        await file.sink.abort();
        throw duplicateName(file.name);
      }
      let signature: Firmware["signature"];
      try {
        signature = await verifySignature(signatureOf(file.fields), file.sha256);
      } catch (err) {
        await file.sink.abort();
        throw err;
      }
      const approval: Firmware["approval"] = {
        state: ctx.config.RELEASE_APPROVALS === "1" ? "pending" : "not_required",
        by: null,
        at: null,
        meaning: null,
      };
      let firmware: Firmware;
      try {
        firmware = await storeFirmware(firmwares, files, file.sink, { ...file, signature, approval, uploader });
      } catch (err) {
        if (err instanceof SigningKeyRevokedError) throw invalidSignature(err.message);
        throw err;
      }
      ctx.log(`Firmware ${firmware.name} stored as ${firmware._id} (${firmware.size} bytes).`);
      // Allowed, but said: the same bytes already stored under another name (looked up after the insert, so of two
      // uploads of the same bytes at once each names the other).
      const original = await firmwares.firstWithSha256(firmware.sha256, firmware._id);
      return original ? { ...firmware, duplicateOf: original._id } : firmware;
    },

    /**
     * The pending firmware `approver` may approve, or 404, 409 (not pending), 403 (their own upload): said before the
     * password is asked for. The store checks all of it again when it approves.
     */
    async approvable(id: string, approver: Pick<Operator, "email">): Promise<Firmware> {
      const firmware = await this.get(id);
      if (firmware.approval.state !== "pending") throw conflict(approvalNotPending(firmware));
      if (firmware.uploadedBy === approver.email) throw forbidden(OWN_UPLOAD);
      return firmware;
    },

    /** Approves a pending firmware (the approver's password was checked): its audit entry with it. */
    approve: (id: string, approver: Pick<Operator, "id" | "email">, meaning: string) =>
      firmwares.approve(id, { id: approver.id, email: approver.email }, meaning),

    /** A wrong password at an approval: a security event in the trail (the firmware stays pending). */
    approvalRefused: (firmware: Firmware) =>
      ctx.stores.audit.record({
        action: "firmware.approve_failed",
        target: { type: "firmware", id: firmware._id, name: firmware.name },
        details: { reason: "wrong_password" },
      }),

    /**
     * Deletes the row (refused while a device type, device or rollout uses it; audited in the same transaction), then
     * the file. Once the row is gone the firmware is: a file that cannot be removed now (the bucket unreachable) has
     * no row, so the sweep of the next start removes it (bootstrap.ts), and the delete still succeeds.
     */
    async remove(id: string): Promise<void> {
      const deleted = await firmwares.remove(id);
      try {
        await files.remove(id);
      } catch (err) {
        ctx.log(
          `WARNING: firmware ${deleted.name} (${id}) deleted; its file stays until the next start's sweep: ${
            err instanceof Error ? err.message : String(err)
          }`,
        );
      }
      ctx.log(`Firmware ${deleted.name} (${id}) deleted.`);
    },
  };
}
