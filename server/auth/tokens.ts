import { sign, verify } from "hono/jwt";
import { TokenClaims } from "../../shared/schemas/auth.ts";

export async function issueToken(secret: string, email: string, passwordVersion: number, ttlSeconds: number): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return await sign({ sub: email, iat, exp: iat + ttlSeconds, pwv: passwordVersion }, secret, "HS256");
}

/** The token's claims, or null when it is malformed, forged, of another algorithm or expired. */
export async function readToken(secret: string, token: string): Promise<TokenClaims | null> {
  try {
    const payload = await verify(token, secret, "HS256");
    const claims = TokenClaims.safeParse(payload);
    if (!claims.success) return null;
    if (claims.data.exp <= Math.floor(Date.now() / 1000)) return null;
    return claims.data;
  } catch {
    return null;
  }
}
