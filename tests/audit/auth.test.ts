/**
 * Audit of authentication: every operator route refuses a missing, malformed or forged token, every device route
 * an operator token or a wrong key (the route lists come from the route table); sign-in and password rules.
 */
import assert from "node:assert/strict";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { jwt } from "../helpers/hostile.ts";
import { authRoutes } from "./samples.ts";
import {
  assertNoInternalErrors,
  type Audit,
  Findings,
  JWT_SECRET,
  refused,
  send,
  snapshot,
  startAudit,
  unchanged,
} from "./setup.ts";

type Variants = [string, string | undefined][];

/** Every route of `auth`, with each Authorization header variant (undefined: none), must be a 401 unauthorized. */
async function refuseEveryVariant(s: Audit, f: Findings, auth: "operator" | "device", variants: Variants) {
  for (const route of authRoutes(s).filter((r) => r.auth === auth)) {
    for (const [name, header] of variants) {
      const body = route.body ? await route.body() : {};
      const r = await send(s.srv, route.method, route.path, {
        ...body,
        ...(header === undefined ? {} : { auth: header }),
      });
      const label = `${route.method} ${route.path} [${name}]`;
      // A HEAD answer has no body: its status is all there is to check.
      if (route.method === "HEAD") f.check(label, () => assert.equal(r.status, 401, `expected 401, got ${r.status}`));
      else refused(f, label, r, [401], { code: "unauthorized" });
    }
  }
}

Deno.test("audit: authentication of every route", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("every operator route refuses a missing, malformed or forged token with 401", async () => {
    const f = new Findings();
    const now = Math.floor(Date.now() / 1000);
    const variants: Variants = [
      ["no Authorization", undefined],
      ["garbage bearer", "Bearer garbage"],
      ["empty bearer", "Bearer "],
      ["bare token", s.token],
      ["tampered signature", `Bearer ${s.token.slice(0, -2)}${s.token.endsWith("AA") ? "BB" : "AA"}`],
      ["Basic credentials", `Basic ${btoa(`${ADMIN_EMAIL}:${ADMIN_PASSWORD}`)}`],
      ["alg none", `Bearer ${jwt({ sub: ADMIN_EMAIL, iat: now, exp: now + 3600, pwv: 0 }, null)}`],
      ["wrong secret", `Bearer ${jwt({ sub: ADMIN_EMAIL, iat: now, exp: now + 3600, pwv: 0 }, "x".repeat(40))}`],
      ["expired", `Bearer ${jwt({ sub: ADMIN_EMAIL, iat: now - 7200, exp: now - 3600, pwv: 0 }, JWT_SECRET)}`],
      ["unknown operator", `Bearer ${jwt({ sub: "ghost@example.com", iat: now, exp: now + 3600 }, JWT_SECRET)}`],
      ["device key", `Bearer ${DEVICE_API_KEY}`],
      ["two tokens", `Bearer ${s.token} Bearer ${s.token}`],
    ];
    const before = await snapshot(s);
    await refuseEveryVariant(s, f, "operator", variants);
    unchanged(f, "after the 401s", before, await snapshot(s));
    f.done();
  });

  await t.step("device routes refuse an operator token or a wrong key with 401", async () => {
    const f = new Findings();
    const variants: Variants = [
      ["no Authorization", undefined],
      ["operator token", `Bearer ${s.token}`],
      ["garbage", "Bearer garbage"],
      ["key with suffix", `Bearer ${DEVICE_API_KEY}x`],
      ["key prefix", `Bearer ${DEVICE_API_KEY.slice(0, -1)}`],
      ["Basic key", `Basic ${btoa(`device:${DEVICE_API_KEY}`)}`],
      ["bare key", DEVICE_API_KEY],
    ];
    const before = await snapshot(s);
    await refuseEveryVariant(s, f, "device", variants);
    // An unknown device with a wrong key must not be created either.
    const r = await send(srv, "POST", "/api/v1/device/dev-intruder/checkin", {
      token: s.token,
      json: { versionInfo: { app: null, os: null, channels: [] } },
    });
    refused(f, "checkin of a new device with the operator token", r, [401], { code: "unauthorized" });
    unchanged(f, "after the 401s", before, await snapshot(s));
    f.done();
  });

  await t.step("a NUL-suffixed e-mail or password never signs in", async () => {
    const f = new Findings();
    // SQLite compares text up to a NUL in some places.
    for (
      const [email, password] of [[`${ADMIN_EMAIL}\u0000x`, ADMIN_PASSWORD], [
        ADMIN_EMAIL,
        `${ADMIN_PASSWORD}\u0000x`,
      ]]
    ) {
      const r = await send(srv, "POST", "/api/v1/login", { json: { email, password } });
      refused(f, `login ${JSON.stringify(email)} / ${JSON.stringify(password)}`, r, [401], {
        code: "invalid_credentials",
      });
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});

Deno.test("audit: a new password of fewer than 8 characters is refused, emoji count as one", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const f = new Findings();
  // Four characters, eight UTF-16 code units: the rule counts characters.
  for (const short of ["🦄🦄🦄🦄", "𝔸𝔹ℂ𝔻𝔼", "ab🦄🦄🦄"]) {
    const r = await send(srv, "POST", "/api/v1/change_password", {
      token: api.token,
      json: { old_password: ADMIN_PASSWORD, new_password: short },
    });
    refused(f, `new_password ${short} (${[...short].length} characters)`, r, [400], { field: "8" });
  }
  // The password is unchanged: the admin still signs in with it.
  await srv.login();
  f.done();
});
