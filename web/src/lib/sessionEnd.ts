import { atom } from "jotai";
import { decodeClaims, getToken, isTokenValid, setToken, store, tokenAtom } from "./token.ts";

/**
 * The session ended while the app was open (token expired, or the server refused it: role or password changed,
 * disabled, signed out elsewhere). The page stays as it was, with a sign-in dialog over it (app/SessionDialog.tsx);
 * calls that met the end wait for it and are sent again once the operator has signed in.
 */
export interface EndedSession {
  /** Who was signed in: the dialog signs the same person in again. */
  email: string;
  expired: boolean;
}

export const sessionEndedAtom = atom<EndedSession | null>(null);

let waiting: ((signedInAgain: boolean) => void)[] = [];

function settle(signedInAgain: boolean): void {
  const now = waiting;
  waiting = [];
  for (const resolve of now) resolve(signedInAgain);
}

/** Opens the sign-in dialog over the page (once), for the session of the current token. */
export function endSession(): void {
  const token = getToken();
  if (!token || store.get(sessionEndedAtom)) return;
  const claims = decodeClaims(token);
  if (!claims) {
    setToken(null);
    return;
  }
  store.set(sessionEndedAtom, { email: claims.sub, expired: claims.exp * 1000 <= Date.now() });
}

/**
 * The API client's `reauthorize`: a call sent with `sent` was refused with 401. Resolves true when it may be sent again
 * (the operator signed in again, or had already), false when the operator signed out instead.
 */
export function reauthorize(sent: string): Promise<boolean> {
  const now = getToken();
  if (!now) return Promise.resolve(false);
  if (now !== sent && isTokenValid(now) && !store.get(sessionEndedAtom)) return Promise.resolve(true);
  endSession();
  if (!store.get(sessionEndedAtom)) return Promise.resolve(false);
  return new Promise((resolve) => waiting.push(resolve));
}

/** Signed in again: the page goes on with the new token and every waiting call is sent again. */
export function resumeSession(token: string): void {
  store.set(sessionEndedAtom, null);
  setToken(token);
  settle(true);
}

// Signing in again in another tab of the same console ends the wait here too.
store.sub(tokenAtom, () => {
  const ended = store.get(sessionEndedAtom);
  const token = getToken();
  if (ended && token && isTokenValid(token) && decodeClaims(token)?.sub === ended.email) resumeSession(token);
});

/** Signed out from the dialog instead: the waiting calls fail (nothing they carried was saved). */
export function leaveSession(): void {
  store.set(sessionEndedAtom, null);
  settle(false);
  setToken(null);
}
