/**
 * docs/REQUIREMENTS.md §19 through the real sign-in route and SQLite store, in process, with the throttle's clock moved forward
 * instead of waited on: after 100 addresses of guesses, the owner in a new browser at a new address is told to
 * wait at most 30 s, and once that wait is over signs in (200); asking early does not restart the wait.
 */
import assert from "node:assert/strict";
import { ADMIN, testApp } from "./app.ts";

Deno.test("after 100 addresses of guesses, the owner from a new browser signs in after at most 30 s", async () => {
  let skew = 0;
  await using app = await testApp((ctx) => {
    const attempts = ctx.stores.loginAttempts;
    return {
      ...ctx,
      config: { ...ctx.config, trustProxy: true },
      stores: {
        ...ctx.stores,
        loginAttempts: {
          ...attempts,
          reserve: (key, at = Date.now()) => attempts.reserve(key, at + skew),
          succeed: (key, at = Date.now()) => attempts.succeed(key, at + skew),
        },
      },
    };
  });
  const signIn = (from: string, password: string) =>
    app.request("/api/v1/login", {
      method: "POST",
      headers: { "X-Forwarded-For": from },
      json: { email: ADMIN.email, password },
    });

  // 100 addresses' guesses, counted as the route counts them (tests/server/known_browser.test.ts sends them over HTTP;
  // here the password checks are skipped to keep the test short).
  for (let i = 0; i < 100; i++) {
    await app.stores.loginAttempts.reserve({ scope: "login", email: ADMIN.email, address: `10.30.0.${i + 1}` });
  }
  const stranger = await signIn("10.30.1.1", "a-wrong-password");
  assert.equal(stranger.status, 429, "the e-mail is over its ceiling");
  await stranger.body?.cancel();

  const first = await signIn("198.51.100.30", ADMIN.password);
  assert.equal(first.status, 429);
  const wait = Number(first.headers.get("retry-after"));
  assert.ok(wait >= 1 && wait <= 30, `Retry-After ${wait}`);
  assert.match((await first.json()).msg, new RegExp(`try again in ${wait} seconds`));

  skew += 10_000;
  const early = await signIn("198.51.100.30", ADMIN.password);
  assert.equal(early.status, 429);
  assert.equal(Number(early.headers.get("retry-after")), wait - 10, "asking early does not restart the wait");
  await early.body?.cancel();

  skew += (wait - 10) * 1000;
  const after = await signIn("198.51.100.30", ADMIN.password);
  assert.equal(after.status, 200, await after.clone().text());
  assert.ok((await after.json()).token);
});
