import { useAtomValue } from "jotai";
import { useCallback, useEffect } from "react";
import { endSession, leaveSession, sessionEndedAtom } from "./sessionEnd.ts";
import { decodeClaims, getToken, isTokenValid, setToken, tokenAtom } from "./token.ts";

export { decodeClaims, isTokenValid, TOKEN_KEY, tokenAtom } from "./token.ts";

/** Signs in with the API and stores the token; throws the ApiError on failure. */
export async function signIn(email: string, password: string): Promise<void> {
  // The API client (with zod and the route table) loads when it is first needed: the sign-in form does without it.
  const { api } = await import("./api.ts");
  const { token } = await api.login(email, password);
  setToken(token);
}

/** Clears the token from memory and storage: the app returns to the sign-in form. */
export function signOut(): void {
  leaveSession();
}

export interface Session {
  token: string | null;
  signedIn: boolean;
  /** The session ended with the app open: the page stays, under the sign-in dialog. */
  ended: boolean;
  /** The token's `sub` claim (the operator's e-mail). */
  identity: string | null;
  signIn: typeof signIn;
  signOut: typeof signOut;
}

export function useSession(): Session {
  const token = useAtomValue(tokenAtom);
  const ended = useAtomValue(sessionEndedAtom) !== null;
  const signedIn = isTokenValid(token);
  const claims = decodeClaims(token);

  // The moment the token expires while the app is open, the sign-in dialog opens over the page.
  useEffect(() => {
    if (!token) return;
    if (!claims) {
      setToken(null);
      return;
    }
    const ms = claims.exp * 1000 - Date.now();
    const timer = setTimeout(() => {
      if (getToken() === token) endSession();
    }, Math.min(Math.max(ms, 0), 2_147_483_647));
    return () => clearTimeout(timer);
  }, [token, claims?.exp]);

  return {
    token: signedIn ? token : null,
    signedIn,
    ended,
    identity: claims?.sub ?? null,
    signIn: useCallback(signIn, []),
    signOut: useCallback(signOut, []),
  };
}
