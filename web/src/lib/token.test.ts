import { describe, expect, it } from "vitest";
import { decodeClaims, isTokenValid } from "./token.ts";

const b64url = (o: unknown) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(o)))).replace(/=+$/, "").replace(/\+/g, "-")
    .replace(/\//g, "_");
const jwt = (payload: unknown) => `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url(payload)}.signature`;

describe("session token", () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const exp = now / 1000 + 60;

  it("reads sub and exp from the payload, including non-ASCII identities", () => {
    expect(decodeClaims(jwt({ sub: "zoë@example.com", iat: 1, exp }))).toEqual({ sub: "zoë@example.com", iat: 1, exp });
  });

  it("is valid only while exp has not passed", () => {
    expect(isTokenValid(jwt({ sub: "a@b", iat: 1, exp }), now)).toBe(true);
    expect(isTokenValid(jwt({ sub: "a@b", iat: 1, exp }), now + 61_000)).toBe(false);
  });

  it("rejects missing and malformed tokens", () => {
    for (const t of [null, undefined, "", "abc", "a.b.c", jwt({ sub: "a@b" }), jwt("text")]) {
      expect(isTokenValid(t, now)).toBe(false);
    }
  });
});
