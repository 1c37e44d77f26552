import { afterEach, describe, expect, it } from "vitest";
import { leaveSession, reauthorize, resumeSession, sessionEndedAtom } from "./sessionEnd.ts";
import { getToken, setToken, store } from "./token.ts";

const b64url = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const exp = Math.floor(Date.now() / 1000) + 3600;
const jwt = (sub: string, n: number) => `${b64url({ alg: "HS256" })}.${b64url({ sub, iat: n, exp })}.sig${n}`;

describe("an ended session", () => {
  afterEach(() => {
    store.set(sessionEndedAtom, null);
    setToken(null);
  });

  it("holds refused calls until the same person signs in again, then lets them be sent again", async () => {
    const first = jwt("ann@example.com", 1);
    setToken(first);
    const a = reauthorize(first);
    const b = reauthorize(first);
    expect(store.get(sessionEndedAtom)).toEqual({ email: "ann@example.com", expired: false });
    let settled = false;
    void a.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    resumeSession(jwt("ann@example.com", 2));
    expect(await a).toBe(true);
    expect(await b).toBe(true);
    expect(store.get(sessionEndedAtom)).toBe(null);
    expect(getToken()).toBe(jwt("ann@example.com", 2));
  });

  it("lets a call refused with an older token go again at once when a new session is there", async () => {
    setToken(jwt("ann@example.com", 3));
    expect(await reauthorize(jwt("ann@example.com", 1))).toBe(true);
    expect(store.get(sessionEndedAtom)).toBe(null);
  });

  it("ends the held calls with their refusal when the person signs out instead", async () => {
    const token = jwt("ann@example.com", 4);
    setToken(token);
    const held = reauthorize(token);
    leaveSession();
    expect(await held).toBe(false);
    expect(getToken()).toBe(null);
  });

  it("never holds a call when nobody is signed in", async () => {
    expect(await reauthorize("whatever")).toBe(false);
    expect(store.get(sessionEndedAtom)).toBe(null);
  });
});
