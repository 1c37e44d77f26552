import { bearer } from "./middleware.ts";

/** True when the Authorization header is `Bearer <secret>`, compared in constant time (secretMatches). */
export function bearerMatches(header: string | undefined, secret: string): boolean {
  const token = bearer(header);
  return token !== null && secretMatches(token, secret);
}

/**
 * True when `given` is `secret`. Every character of the secret is compared, whatever `given` holds, so the time taken
 * tells nothing of where they differ (only the secret's length, which is no secret: config.ts sets its minimum). Plain
 * code units, no hashing: a sha256 of each side (node:crypto) was ~5 % of a quiet device poll's CPU.
 */
export function secretMatches(given: string, secret: string): boolean {
  let diff = given.length ^ secret.length;
  // charCodeAt past the end of `given` is NaN, `| 0` makes it 0: a shorter `given` still costs the full loop.
  for (let i = 0; i < secret.length; i++) diff |= secret.charCodeAt(i) ^ (given.charCodeAt(i) | 0);
  return diff === 0;
}
