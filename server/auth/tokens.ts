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
const MAX_CACHED = 10_000;
const verified = new Map<string, TokenClaims>();

const cacheKey = (secret: string, token: string) => `${secret}\n${token}`;
const expired = (claims: TokenClaims) => claims.exp <= Math.floor(Date.now() / 1000);

/** Claims of an already verified token (null when it has expired), or undefined when it is not known yet. */
export function knownToken(secret: string, token: string): TokenClaims | null | undefined {
  const key = cacheKey(secret, token);
  const claims = verified.get(key);
  if (!claims) return undefined;
  if (expired(claims)) {
    verified.delete(key);
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
  if (verified.size >= MAX_CACHED) verified.delete(verified.keys().next().value!);
  verified.set(cacheKey(secret, token), claims);
  return claims;
}
