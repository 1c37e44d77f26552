import { sign, verify } from "hono/jwt";
import { TokenClaims } from "../../shared/schemas/auth.ts";

export async function issueToken(
  secret: string,
  email: string,
  passwordVersion: number,
  ttlSeconds: number,
): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return await sign({ sub: email, iat, exp: iat + ttlSeconds, pwv: passwordVersion }, secret, "HS256");
}

// Verifying the HMAC costs ~50 µs; a token's signature never changes, so verified tokens are remembered.
// Expiry is still checked on every use, and the caller checks the password version against the database.
// By secret, then token: a lookup makes no key (a string of both) on every request.
const MAX_CACHED = 10_000;
const verifiedBySecret = new Map<string, Map<string, TokenClaims>>();

const expired = (claims: TokenClaims) => claims.exp <= Math.floor(Date.now() / 1000);

/** Claims of an already verified token (null when it has expired), or undefined when it is not known yet. */
export function knownToken(secret: string, token: string): TokenClaims | null | undefined {
  const verified = verifiedBySecret.get(secret);
  const claims = verified?.get(token);
  if (!claims) return undefined;
  if (expired(claims)) {
    verified!.delete(token);
    return null;
  }
  return claims;
}

/** The token's claims, or null when it is malformed, forged, of another algorithm or expired. */
export async function readToken(secret: string, token: string): Promise<TokenClaims | null> {
  const known = knownToken(secret, token);
  if (known !== undefined) return known;
  let claims: TokenClaims;
  try {
    const parsed = TokenClaims.safeParse(await verify(token, secret, "HS256"));
    if (!parsed.success) return null;
    claims = parsed.data;
  } catch {
    return null;
  }
  if (expired(claims)) return null;
  let verified = verifiedBySecret.get(secret);
  if (!verified) verifiedBySecret.set(secret, verified = new Map());
  if (verified.size >= MAX_CACHED) verified.delete(verified.keys().next().value!);
  verified.set(token, claims);
  return claims;
}
