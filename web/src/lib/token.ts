import { atom, getDefaultStore } from "jotai";
import type { TokenClaims } from "../../../shared/schemas/auth.ts";
import { jwtPayload, TOKEN_KEY } from "./jwt.ts";

export { TOKEN_KEY } from "./jwt.ts";

/** The last token decoded and its claims: every render and request asks for the same one. */
let decoded: { token: string; claims: TokenClaims | null } | null = null;

/** The payload of a JWT, or null when it is not one we can read. */
export function decodeClaims(token: string | null | undefined): TokenClaims | null {
  if (!token) return null;
  if (decoded?.token !== token) decoded = { token, claims: readClaims(token) };
  return decoded.claims;
}

/**
 * The claims the console reads (the shape of shared/schemas/auth.ts's TokenClaims), checked by hand: zod stays out of
 * the sign-in page's code (the server checks every token anyway).
 */
function readClaims(token: string): TokenClaims | null {
  const p = jwtPayload(token) as Record<string, unknown> | null;
  if (!p || typeof p !== "object" || typeof p.sub !== "string" || typeof p.iat !== "number") return null;
  if (typeof p.exp !== "number" || (p.pwv !== undefined && typeof p.pwv !== "number")) return null;
  return { sub: p.sub, iat: p.iat, exp: p.exp, ...(p.pwv !== undefined ? { pwv: p.pwv as number } : {}) };
}

/** Signed in only if a token exists and its expiry has not passed. */
export function isTokenValid(token: string | null | undefined, nowMs = Date.now()): token is string {
  const claims = decodeClaims(token);
  return !!claims && claims.exp * 1000 > nowMs;
}

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

function readStoredToken(): string | null {
  const token = storage()?.getItem(TOKEN_KEY) ?? null;
  if (token && !isTokenValid(token)) {
    storage()?.removeItem(TOKEN_KEY);
    return null;
  }
  return token;
}

/** The current token (restored from localStorage at start). */
export const tokenAtom = atom<string | null>(readStoredToken());

export const store = getDefaultStore();

export function getToken(): string | null {
  return store.get(tokenAtom);
}

/** Stores (or with null clears) the token in memory and in localStorage. */
export function setToken(token: string | null): void {
  if (token) storage()?.setItem(TOKEN_KEY, token);
  else storage()?.removeItem(TOKEN_KEY);
  store.set(tokenAtom, token);
}

// Another tab signing in or out applies here too.
globalThis.addEventListener?.("storage", (e: StorageEvent) => {
  if (e.key === TOKEN_KEY || e.key === null) store.set(tokenAtom, readStoredToken());
});
