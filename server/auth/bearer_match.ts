import { createHash, timingSafeEqual } from "node:crypto";
import { bearer } from "./middleware.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/** True when the Authorization header is `Bearer <secret>`, compared in constant time (of the hashes). */
export function bearerMatches(header: string | undefined, secret: string): boolean {
  const token = bearer(header);
  return token !== null && secretMatches(token, secret);
}

/** True when `given` is `secret`, compared in constant time (of the hashes). */
export const secretMatches = (given: string, secret: string): boolean => timingSafeEqual(sha256(given), sha256(secret));
