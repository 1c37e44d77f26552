/**
 * Release keys and detached signatures (docs/REQUIREMENTS.md §20; docs/DECISIONS.md, "Release integrity"). The signed
 * message is the firmware file's SHA-256 digest, its 32 raw bytes: Ed25519 signs them as they are, ECDSA P-256 signs
 * them with SHA-256 (so it checks sha256(digest)), as `openssl pkeyutl -sign -rawin` and `openssl dgst -sha256 -sign`
 * make them. The digest is the one the upload computed while it streamed: nothing reads the file again.
 */
import { createHash, createPublicKey, type KeyObject, verify } from "node:crypto";
import type { ReleaseKey, ReleaseKeyAlgorithm } from "../../shared/schemas/release_key.ts";

export interface ParsedPublicKey {
  algorithm: ReleaseKeyAlgorithm;
  /** PEM SubjectPublicKeyInfo, re-encoded (whatever PEM form was sent). */
  publicKey: string;
  fingerprint: string;
}

/** A PEM public key of a supported kind, re-encoded; a message for the client (naming `publicKey`) otherwise. */
export function parsePublicKey(pem: string): ParsedPublicKey | string {
  if (!/-----BEGIN [A-Z ]*PUBLIC KEY-----/.test(pem)) {
    return "publicKey: must be a PEM public key (-----BEGIN PUBLIC KEY-----); a private key is never sent.";
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: "pem" });
  } catch {
    return "publicKey: is not a readable PEM public key.";
  }
  let algorithm: ReleaseKeyAlgorithm;
  if (key.asymmetricKeyType === "ed25519") algorithm = "ed25519";
  else if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") {
    algorithm = "ecdsa-p256";
  } else {
    return `publicKey: must be an Ed25519 or ECDSA P-256 key (this one is ${key.asymmetricKeyType}${
      key.asymmetricKeyDetails?.namedCurve ? ` ${key.asymmetricKeyDetails.namedCurve}` : ""
    }).`;
  }
  const der = key.export({ type: "spki", format: "der" });
  return {
    algorithm,
    publicKey: key.export({ type: "spki", format: "pem" }).toString(),
    fingerprint: createHash("sha256").update(der).digest("hex"),
  };
}

/** Parsed keys by fingerprint: a key's PEM never changes, so it is parsed once per process. */
const parsed = new Map<string, KeyObject>();
function keyObject(key: Pick<ReleaseKey, "publicKey" | "fingerprint">): KeyObject {
  let k = parsed.get(key.fingerprint);
  if (!k) {
    k = createPublicKey({ key: key.publicKey, format: "pem" });
    if (parsed.size > 1000) parsed.clear();
    parsed.set(key.fingerprint, k);
  }
  return k;
}

/** The signature bytes of a base64 form field (standard or URL alphabet, padding optional); null when it is not. */
export function signatureBytes(base64: string): Uint8Array | null {
  const text = base64.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || text.length > 1024) return null;
  const bytes = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return bytes.length > 0 ? bytes : null;
}

/**
 * True when `signature` is the key's signature over `digest` (the 32 raw bytes). ECDSA signatures are accepted in
 * DER (what openssl makes) and as raw r||s (IEEE P1363, 64 bytes: what WebCrypto and HSM APIs make).
 */
export function verifiesDigest(
  key: Pick<ReleaseKey, "algorithm" | "publicKey" | "fingerprint">,
  digest: Uint8Array,
  signature: Uint8Array,
): boolean {
  const k = keyObject(key);
  try {
    if (key.algorithm === "ed25519") return signature.length === 64 && verify(null, digest, k, signature);
    if (verify("sha256", digest, { key: k, dsaEncoding: "der" }, signature)) return true;
    return signature.length === 64 && verify("sha256", digest, { key: k, dsaEncoding: "ieee-p1363" }, signature);
  } catch {
    return false; // a malformed signature is one that does not verify
  }
}

/** The first of `keys` that verifies the signature, or null. */
export function signingKey<K extends Pick<ReleaseKey, "algorithm" | "publicKey" | "fingerprint">>(
  keys: readonly K[],
  digest: Uint8Array,
  signature: Uint8Array,
): K | null {
  return keys.find((k) => verifiesDigest(k, digest, signature)) ?? null;
}
