/**
 * Per-device credentials (docs/REQUIREMENTS.md §11, DEVICE_AUTH=token): a token is 256 random bits, shown to the device once and
 * stored only as its sha256. No KDF: a key stretcher protects guessable secrets (passwords); a 256-bit random secret
 * cannot be guessed, so one fast hash is enough and every device call costs one lookup by primary key plus one
 * constant-time comparison (docs/DECISIONS.md, "Device identity and admission").
 */
import { createHash, randomBytes } from "node:crypto";
import { secretMatches } from "./bearer_match.ts";

/** The prefix of a device token: recognisable in a leaked log or a secret scanner. */
export const DEVICE_TOKEN_PREFIX = "tdd_";

/** A fresh device token: the prefix and 32 random bytes, base64url. */
export function newDeviceToken(): string {
  return DEVICE_TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** How a token is stored: its sha256, hex. */
export const deviceTokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** True when `token` hashes to `storedHash`, compared in constant time; false when the device holds none. */
export function deviceTokenMatches(token: string, storedHash: string | null): boolean {
  if (storedHash === null || storedHash.length !== 64) return false;
  // The hex texts compared in constant time (no Buffers: every token-authenticated device call makes this comparison).
  return secretMatches(deviceTokenHash(token), storedHash.toLowerCase());
}
