/**
 * Release keys (docs/REQUIREMENTS.md §20; docs/DECISIONS.md, "Release integrity"): the public keys of the maker's
 * build pipeline. An upload may carry a detached signature over the file's SHA-256 digest (its 32 raw bytes) made
 * with the private half; the server verifies it with the digest it computed while the file streamed. A key is
 * revoked, never deleted or reused: its row stays so that firmware it signed keeps naming it.
 */
import * as z from "zod";
import { Id, Name, Timestamp } from "./common.ts";

export const RELEASE_KEY_ALGORITHMS = ["ed25519", "ecdsa-p256"] as const;
export const ReleaseKeyAlgorithm = z.enum(RELEASE_KEY_ALGORITHMS);
export type ReleaseKeyAlgorithm = z.infer<typeof ReleaseKeyAlgorithm>;

export const MAX_RELEASE_KEY_NAME = 100;
/** A PEM public key is a few hundred characters; more is not a key of ours. */
export const MAX_PUBLIC_KEY_PEM = 4096;

export const ReleaseKey = z.object({
  _id: Id,
  name: z.string(),
  algorithm: ReleaseKeyAlgorithm,
  /** The public key, PEM (SubjectPublicKeyInfo), as the server re-encoded it. */
  publicKey: z.string(),
  /** sha256 hex of the key's DER SubjectPublicKeyInfo: the same key is never registered twice. */
  fingerprint: z.string(),
  createdAt: Timestamp,
  /** The e-mail of the admin who registered it. */
  createdBy: z.string(),
  /** Null while the key verifies new uploads; set once it is revoked (for good). */
  revokedAt: Timestamp.nullable(),
  revokedBy: z.string().nullable(),
});
export type ReleaseKey = z.infer<typeof ReleaseKey>;

export const NewReleaseKey = z.strictObject({
  name: Name.pipe(z.string().max(MAX_RELEASE_KEY_NAME, `is at most ${MAX_RELEASE_KEY_NAME} characters`)),
  publicKey: z.string().min(1, "must not be empty").max(
    MAX_PUBLIC_KEY_PEM,
    `is at most ${MAX_PUBLIC_KEY_PEM} characters`,
  ),
});
export type NewReleaseKey = z.input<typeof NewReleaseKey>;

/** Form fields of a signed upload (multipart, before the file). */
export const SIGNATURE_FIELD = "signature";
export const KEY_ID_FIELD = "keyId";
