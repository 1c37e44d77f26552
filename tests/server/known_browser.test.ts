/**
 * docs/REQUIREMENTS.md §19, "Strangers cannot lock the owner out, even from many addresses", against the real server (both
 * engines): 100 addresses of wrong passwords for the owner's e-mail, then the owner from a browser holding the
 * known-browser mark signs in (200), and from a new browser waits at most 30 s (the 429 says how long; the store's
 * conformance cases check that the attempt is then let through). A password change revokes the mark.
 */
import assert from "node:assert/strict";
import {
  KNOWN_BROWSER_MAX_AGE_SECONDS,
  knownBrowserCookie,
  markedBrowser,
  newMark,
} from "../../server/auth/known_browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from "../../testing/server.ts";

async function signIn(srv: TestServer, from: string, password: string, cookie?: string, proto?: string) {
  const headers: Record<string, string> = { "content-type": "application/json", "x-forwarded-for": from };
  if (cookie) headers.cookie = cookie;
  if (proto) headers["x-forwarded-proto"] = proto;
  const res = await srv.fetch("/api/v1/login", {
    method: "POST",
    headers,
    body: JSON.stringify({ email: ADMIN_EMAIL, password }),
  });
  const json = await res.json();
  return {
    status: res.status,
    json,
    retryAfter: res.headers.get("retry-after"),
    setCookie: res.headers.get("set-cookie"),
  };
}

/**
 * Five wrong passwords, then `attempt`: refused (429, answered) while the 1 s wait after the fifth lasts. The wait runs
 * from the fifth attempt's start; on a machine so loaded that its answer came after the wait was over, the refusal
 * cannot be seen in time: then the attempt must go through, and the figure is printed (null answered).
 */
async function afterFiveFailures(
  attempt: () => ReturnType<typeof signIn>,
  failure: (i: number) => ReturnType<typeof signIn>,
) {
  let fifthStarted = 0;
  for (let i = 0; i < 5; i++) {
    if (i === 4) fifthStarted = performance.now();
    assert.equal((await failure(i)).status, 401);
  }
  const waited = performance.now() - fifthStarted;
  const res = await attempt();
  if (waited < 1000) {
    assert.equal(res.status, 429, `${waited.toFixed(0)} ms after the fifth failure`);
    return res;
  }
  console.log(`the fifth failure took ${waited.toFixed(0)} ms (load): its 1 s wait was over before the next attempt`);
  assert.ok(res.status === 429 || res.status === 200, String(res.status));
  return res.status === 429 ? res : null;
}

/** The `name=value` of a Set-Cookie header. */
const cookieOf = (setCookie: string | null) => setCookie!.split(";")[0];

Deno.test("the owner signs in from a known browser whatever 100 addresses guessed; a new browser waits ≤ 30 s", async () => {
  await using srv = await startServer({ env: { TRUST_PROXY: "1" } });

  const first = await signIn(srv, "192.0.2.10", ADMIN_PASSWORD);
  assert.equal(first.status, 200);
  const attributes = first.setCookie!.split(";").map((s) => s.trim().toLowerCase());
  assert.match(first.setCookie!, /^tdc_kb_[\w-]+=v1\./);
  for (const a of ["httponly", "samesite=strict", "path=/api/v1/login"]) assert.ok(attributes.includes(a), a);
  assert.ok(attributes.some((a) => a.startsWith("max-age=")), "long-lived");
  assert.ok(!attributes.includes("secure"), "plain http: not Secure (the browser would drop it)");
  const secure = await signIn(srv, "192.0.2.10", ADMIN_PASSWORD, undefined, "https");
  assert.ok(secure.setCookie!.split(";").map((s) => s.trim().toLowerCase()).includes("secure"), "Secure over https");
  const known = cookieOf(first.setCookie);

  // 100 addresses, one wrong password each (a few at a time: the password-check queue is bounded).
  const started = performance.now();
  const statuses: number[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const round = await Promise.all(
      Array.from({ length: 10 }, (_, i) => signIn(srv, `10.20.${batch}.${i + 1}`, `wrong-password-${batch}-${i}`)),
    );
    statuses.push(...round.map((r) => r.status));
  }
  console.log(
    `100 addresses of guesses in ${Math.round(performance.now() - started)} ms: ` +
      `${statuses.filter((s) => s === 401).length} × 401, ${statuses.filter((s) => s === 429).length} × 429`,
  );
  assert.ok(statuses.every((s) => s === 401 || s === 429));
  assert.ok(statuses.includes(429), "the e-mail-wide ceiling was reached");

  // From a known browser at an address never seen: signed in at once.
  const owner = await signIn(srv, "203.0.113.77", ADMIN_PASSWORD, known);
  assert.equal(owner.status, 200, JSON.stringify(owner.json));
  const marked = cookieOf(owner.setCookie);

  // From a new browser at a new address: a bounded wait, said in the message.
  const stranger = await signIn(srv, "198.51.100.20", ADMIN_PASSWORD);
  assert.deepEqual([stranger.status, stranger.json.error], [429, "too_many_requests"]);
  const wait = Number(stranger.retryAfter);
  console.log(`a new browser waits ${wait} s: ${stranger.json.msg}`);
  assert.ok(wait >= 1 && wait <= 30, `Retry-After ${stranger.retryAfter}`);
  assert.match(
    stranger.json.msg,
    /try again in \d+ seconds, or from a browser or network you have signed in from before/,
  );

  // A known browser is throttled by its own failures only: 5 at once, then it waits.
  const slowed = await afterFiveFailures(
    () => signIn(srv, "203.0.113.77", ADMIN_PASSWORD, marked),
    (i) => signIn(srv, "203.0.113.77", `typo-${i}`, marked),
  );
  if (slowed) assert.match(slowed.json.msg, /from this browser; try again in 1 second/);

  // A forged mark counts for nothing: the attempt is one from a new place under the e-mail-wide ceiling, never the
  // browser's own count. Its last character is changed, one base64url spelling of the same signature bytes included.
  for (const last of ["A", "B", "E", "_"]) {
    const forged = known.slice(0, -1) + last;
    if (forged === known) continue;
    const forgedTry = await signIn(srv, `198.51.100.${21 + last.charCodeAt(0) % 50}`, ADMIN_PASSWORD, forged);
    assert.equal(forgedTry.status, 429, `a mark ending in ${last}: ${JSON.stringify(forgedTry.json)}`);
    assert.doesNotMatch(forgedTry.json.msg, /from this browser/);
  }
});

Deno.test("a password change revokes the known-browser mark", async () => {
  await using srv = await startServer({ env: { TRUST_PROXY: "1" } });
  const first = await signIn(srv, "192.0.2.10", ADMIN_PASSWORD);
  const known = cookieOf(first.setCookie);
  const api = await srv.login();
  const changed = await srv.fetch("/api/v1/change_password", {
    method: "POST",
    token: api.token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ old_password: ADMIN_PASSWORD, new_password: "a-new-password-123" }),
  });
  assert.equal(changed.status, 200);
  // The old mark no longer makes the browser known: its attempts count per address again, five at once.
  const held = await afterFiveFailures(
    () => signIn(srv, "192.0.2.99", "a-new-password-123", known),
    (i) => signIn(srv, "192.0.2.99", `typo-${i}`, known),
  );
  if (held) assert.match(held.json.msg, /from your address/);
});

Deno.test("a known-browser mark is valid only for its operator, password version, secret and year", () => {
  const secret = "known-browser-test-secret-0123456789";
  const op = { id: "op-1", passwordVersion: 3, disabled: false };
  const now = Date.parse("2026-06-01T00:00:00Z");
  const mark = newMark(secret, op, now);
  const browser = markedBrowser(secret, op, mark, now);
  assert.match(browser ?? "", /^[\w-]{22}$/);
  assert.notEqual(markedBrowser(secret, op, newMark(secret, op, now), now), browser, "a fresh nonce each time");
  assert.equal(markedBrowser(secret, { ...op, id: "op-2" }, mark, now), null, "another operator");
  assert.equal(markedBrowser(secret, { ...op, passwordVersion: 4 }, mark, now), null, "password changed");
  assert.equal(markedBrowser(secret, { ...op, disabled: true }, mark, now), null, "disabled");
  assert.equal(markedBrowser(`${secret}x`, op, mark, now), null, "another secret");
  assert.equal(markedBrowser(secret, op, mark, now + KNOWN_BROWSER_MAX_AGE_SECONDS * 1000), null, "a year old");
  assert.equal(markedBrowser(secret, op, mark.replace(".3.", ".4."), now), null, "tampered");
  // The signature's last base64url character holds 2 unused bits: every other spelling decodes to the same bytes.
  const last = mark.at(-1)!;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const group = alphabet.indexOf(last) & ~3;
  const sameBytes = alphabet.slice(group, group + 4);
  assert.equal(sameBytes.length, 4, `a signature ending in ${last}`);
  for (const c of sameBytes.replace(last, "")) {
    assert.equal(markedBrowser(secret, op, mark.slice(0, -1) + c, now), null, `ending in ${c} instead of ${last}`);
  }
  for (const c of "AEQg_") {
    if (c !== last) assert.equal(markedBrowser(secret, op, mark.slice(0, -1) + c, now), null, `ending in ${c}`);
  }
  assert.equal(markedBrowser(secret, op, undefined, now), null);
  assert.equal(markedBrowser(secret, op, "v1.x", now), null);
  assert.match(knownBrowserCookie("op-1"), /^tdc_kb_[\w-]{16}$/);
});
