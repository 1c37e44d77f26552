/**
 * API token secrets (docs/REQUIREMENTS.md §12): `tdc_` and 32 random bytes as base64url (256 bits). Only sha256(secret) is
 * stored and looked up: the secret is random and as long as the hash, so a slow salted hash (as for passwords) would
 * add nothing but cost on every request. No secret is ever compared in code: the row is found through the index on
 * the hash, and what an index lookup's timing could tell is about a hash, never the secret (docs/DECISIONS.md,
 * "API tokens").
 */
import { createHash, randomBytes } from "node:crypto";
import { TOKEN_PREFIX } from "../../shared/schemas/api_token.ts";

/** A secret is the prefix and exactly 43 base64url characters; anything else is refused before any lookup. */
const SECRET_SHAPE = /^tdc_[A-Za-z0-9_-]{43}$/;

export function newSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** The stored form of a secret: hex sha256. */
export const secretHash = (secret: string) => createHash("sha256").update(secret).digest("hex");

export const wellFormedSecret = (secret: string) => SECRET_SHAPE.test(secret);
