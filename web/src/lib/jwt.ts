/** The token lives in localStorage under this key. */
export const TOKEN_KEY = "accessToken";

/**
 * The payload of a JWT as JSON (not checked), or null when it is not one. No dependencies: the boot script
 * (web/src/boot.ts) and the app's token code both read tokens with it.
 */
export function jwtPayload(token: string | null | undefined): unknown {
  const part = token?.split(".")[1];
  if (!part) return null;
  try {
    const b64 = part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "=");
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0))));
  } catch {
    return null;
  }
}
