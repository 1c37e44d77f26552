import assert from "node:assert/strict";
import {
  ACCOUNT_CEILING,
  ACCOUNT_WINDOW_MS,
  FORGET_AFTER_MS,
  FREE_ATTEMPTS,
  KNOWN_ADDRESS_MS,
  MAX_DELAY_MS,
  NEW_PLACE_PACE_MS,
} from "../../../server/db/rules/login_attempts.ts";
import type { AttemptKey, Reservation } from "../../../server/db/stores.ts";
import { type ConformanceOptions, storeTest } from "../fixtures.ts";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const key = (address: string, email = "owner@example.com", scope: AttemptKey["scope"] = "login"): AttemptKey => ({
  scope,
  email,
  address,
});
const allowed = (r: Reservation) => r.ok;
const waitOf = (r: Reservation) => r.ok ? 0 : r.waitMs;

export function loginAttemptCases(engine: string, options: ConformanceOptions) {
  storeTest(
    engine,
    options,
    "login attempts: five at once, then a growing delay per e-mail and address",
    async (s, t) => {
      const { loginAttempts } = s;
      const a = key("198.51.100.7");

      await t.step("the first five are counted at once, the sixth must wait 1 s", async () => {
        for (let i = 0; i < FREE_ATTEMPTS; i++) assert.ok(allowed(await loginAttempts.reserve(a, T0 + i)));
        const refused = await loginAttempts.reserve(a, T0 + 4);
        assert.deepEqual(refused, { ok: false, waitMs: 1000, reason: "address" });
      });

      await t.step(
        "e-mail case and spaces do not matter; another address or e-mail or scope is not held up",
        async () => {
          assert.equal(allowed(await loginAttempts.reserve(key("198.51.100.7", " OWNER@example.com "), T0 + 5)), false);
          assert.ok(allowed(await loginAttempts.reserve(key("203.0.113.5"), T0 + 5)));
          assert.ok(allowed(await loginAttempts.reserve(key("198.51.100.7", "other@example.com"), T0 + 5)));
          assert.ok(
            allowed(await loginAttempts.reserve(key("198.51.100.7", "owner@example.com", "change_password"), T0)),
          );
        },
      );

      await t.step("each further attempt waits twice as long; a refused one does not extend the wait", async () => {
        let at = T0 + 4;
        for (const delay of [1000, 2000, 4000, 8000]) {
          assert.equal(waitOf(await loginAttempts.reserve(a, at + delay - 1)), 1);
          assert.ok(allowed(await loginAttempts.reserve(a, at + delay)));
          at += delay;
        }
        assert.equal(waitOf(await loginAttempts.reserve(a, at)), 16_000);
      });

      await t.step("the delay stops growing at its cap", async () => {
        let at = T0;
        const b = key("192.0.2.1");
        for (let i = 0; i < 30; i++) {
          const r = await loginAttempts.reserve(b, at);
          at += r.ok ? 0 : r.waitMs;
          if (!r.ok) assert.ok(r.waitMs <= MAX_DELAY_MS);
          if (!r.ok) assert.ok(allowed(await loginAttempts.reserve(b, at)));
        }
        assert.equal(waitOf(await loginAttempts.reserve(b, at)), MAX_DELAY_MS);
      });

      await t.step("a success starts the key again from zero", async () => {
        await loginAttempts.succeed(a, T0 + 60_000);
        for (let i = 0; i < FREE_ATTEMPTS; i++) assert.ok(allowed(await loginAttempts.reserve(a, T0 + 60_000)));
        assert.equal(allowed(await loginAttempts.reserve(a, T0 + 60_000)), false);
      });

      await t.step("a key quiet for long is forgotten", async () => {
        assert.ok(allowed(await loginAttempts.reserve(a, T0 + 60_000 + FORGET_AFTER_MS)));
        for (let i = 1; i < FREE_ATTEMPTS; i++) {
          assert.ok(allowed(await loginAttempts.reserve(a, T0 + 60_000 + FORGET_AFTER_MS)));
        }
      });
    },
  );

  storeTest(engine, options, "login attempts: a released slot is given back", async ({ loginAttempts }) => {
    const a = key("198.51.100.7");
    const reservations: Reservation[] = [];
    for (let i = 0; i < FREE_ATTEMPTS; i++) reservations.push(await loginAttempts.reserve(a, T0));
    assert.equal(allowed(await loginAttempts.reserve(a, T0)), false);
    const last = reservations.at(-1)!;
    assert.ok(last.ok);
    await loginAttempts.release(a, last);
    assert.ok(allowed(await loginAttempts.reserve(a, T0)));
    assert.equal(allowed(await loginAttempts.reserve(a, T0)), false);
  });

  storeTest(engine, options, "login attempts: reservations at once never exceed the free five", async (stores) => {
    const a = key("198.51.100.7");
    const other = await options.another(stores);
    try {
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? other : stores).loginAttempts.reserve(a, T0)),
      );
      assert.equal(results.filter(allowed).length, FREE_ATTEMPTS);
      for (const r of results) if (!r.ok) assert.equal(r.reason, "address");
    } finally {
      await other.close();
    }
  });

  storeTest(engine, options, "login attempts: the e-mail's ceiling holds up new addresses only", async (s, t) => {
    const { loginAttempts } = s;
    const home = key("203.0.113.5");
    const signedIn = T0 - ACCOUNT_WINDOW_MS - 1000;
    await loginAttempts.reserve(home, signedIn);
    await loginAttempts.succeed(home, signedIn);

    await t.step("attempts from many new addresses reach the ceiling; a new address then waits ≤ 30 s", async () => {
      for (let i = 0; i < ACCOUNT_CEILING; i++) {
        assert.ok(allowed(await loginAttempts.reserve(key(`10.0.${i >> 8}.${i & 255}`), T0 + i)));
      }
      const paced = { ok: false, waitMs: NEW_PLACE_PACE_MS, reason: "account" };
      assert.ok(NEW_PLACE_PACE_MS <= 30_000);
      assert.deepEqual(await loginAttempts.reserve(key("10.9.9.9"), T0 + 100), paced);
      // Asking again early does not start the wait again; once it is over, the attempt is checked.
      assert.deepEqual(await loginAttempts.reserve(key("10.9.9.9"), T0 + 10_100), { ...paced, waitMs: 20_000 });
      assert.ok(allowed(await loginAttempts.reserve(key("10.9.9.9"), T0 + 100 + NEW_PLACE_PACE_MS)));
      // Each new address gets one attempt per pace while the e-mail is over its ceiling.
      assert.deepEqual(await loginAttempts.reserve(key("10.9.9.9"), T0 + 200 + NEW_PLACE_PACE_MS), {
        ...paced,
        waitMs: NEW_PLACE_PACE_MS - 100,
      });
      assert.deepEqual(await loginAttempts.reserve(key("10.9.9.7"), T0 + 200 + NEW_PLACE_PACE_MS), paced);
      // Once the window is over, new addresses go at once again.
      assert.ok(allowed(await loginAttempts.reserve(key("10.9.9.8"), T0 + ACCOUNT_WINDOW_MS)));
    });

    await t.step("a known browser is counted on its own and never held up by the ceiling", async () => {
      const browser = key("kb-nonce-1", "owner@example.com", "known_browser");
      assert.deepEqual(await loginAttempts.reserve(browser, T0 + 300), { ok: true, accountWide: false });
      for (let i = 1; i < FREE_ATTEMPTS; i++) assert.ok(allowed(await loginAttempts.reserve(browser, T0 + 300)));
      assert.deepEqual(await loginAttempts.reserve(browser, T0 + 300), { ok: false, waitMs: 1000, reason: "address" });
      assert.ok(
        allowed(await loginAttempts.reserve(key("kb-nonce-2", "owner@example.com", "known_browser"), T0 + 300)),
      );
      // Its success clears its count and makes no address known.
      await loginAttempts.succeed(browser, T0 + 400);
      assert.ok(allowed(await loginAttempts.reserve(browser, T0 + 400)));
      assert.deepEqual(await loginAttempts.reserve(key("kb-nonce-1"), T0 + ACCOUNT_WINDOW_MS), {
        ok: true,
        accountWide: true,
      });
    });

    await t.step("an address the e-mail signed in from is not held up, nor another e-mail", async () => {
      assert.deepEqual(await loginAttempts.reserve(home, T0 + 200), { ok: true, accountWide: false });
      assert.ok(allowed(await loginAttempts.reserve(key("10.9.9.9", "other@example.com"), T0 + 200)));
      assert.ok(allowed(await loginAttempts.reserve(key("10.9.9.8", "owner@example.com", "change_password"), T0)));
    });

    await t.step("an address is known for a limited time", async () => {
      const later = signedIn + KNOWN_ADDRESS_MS;
      for (let i = 0; i < ACCOUNT_CEILING; i++) await loginAttempts.reserve(key(`10.1.${i >> 8}.${i & 255}`), later);
      const r = await loginAttempts.reserve(home, later);
      assert.equal(r.ok ? "ok" : r.reason, "account");
    });
  });

  storeTest(engine, options, "login attempts: pruning keeps the table bounded", async ({ loginAttempts }) => {
    for (let i = 0; i < 20; i++) await loginAttempts.reserve(key(`10.2.0.${i}`), T0 + i);
    await loginAttempts.succeed(key("10.2.0.0"), T0);
    // 20 keys, the e-mail's ceiling row and one known address; nothing has aged yet.
    assert.equal(await loginAttempts.prune(T0 + 20), 0);
    // Beyond the bound, the oldest keys go first: 10.2.0.1 and 10.2.0.2 (and the key of 10.2.0.0, cleared already).
    assert.equal(await loginAttempts.prune(T0 + 20, 18), 2);
    for (let i = 1; i < FREE_ATTEMPTS; i++) await loginAttempts.reserve(key("10.2.0.3"), T0 + 30);
    assert.equal(allowed(await loginAttempts.reserve(key("10.2.0.3"), T0 + 30)), false);
    for (let i = 0; i < FREE_ATTEMPTS; i++) assert.ok(allowed(await loginAttempts.reserve(key("10.2.0.1"), T0 + 30)));
    // Everything quiet for long goes: every key and, later, the known address.
    assert.equal(await loginAttempts.prune(T0 + 31 + FORGET_AFTER_MS), 19);
    assert.equal(await loginAttempts.prune(T0 + KNOWN_ADDRESS_MS + 1), 1);
  });
}
