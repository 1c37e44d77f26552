/**
 * Sign-in throttling over HTTP against the real server: per e-mail and client address, a growing delay, reservations
 * before the password check (bursts), a bounded queue of password hashes, change_password alike.
 */
import assert from "node:assert/strict";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from "../../testing/server.ts";
import { assertWithinUnderLoad } from "../helpers/load.ts";

const INVALID = "Invalid email address or password.";
const STRANGER = "198.51.100.7";
const OWNER = "203.0.113.5";

interface Answer {
  status: number;
  error: string;
  msg: string;
  retryAfter: number | null;
  ms: number;
}

async function post(
  srv: TestServer,
  path: string,
  body: unknown,
  opts: { from?: string; token?: string } = {},
): Promise<Answer> {
  const started = performance.now();
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.from) headers["x-forwarded-for"] = opts.from;
  const res = await srv.fetch(path, { method: "POST", headers, token: opts.token, body: JSON.stringify(body) });
  const json = await res.json();
  const retryAfter = res.headers.get("retry-after");
  return {
    status: res.status,
    error: json.error,
    msg: json.msg,
    retryAfter: retryAfter === null ? null : Number(retryAfter),
    ms: performance.now() - started,
  };
}

const signIn = (srv: TestServer, password: string, from?: string, email = ADMIN_EMAIL) =>
  post(srv, "/api/v1/login", { email, password }, { from });

/** A throttled answer: 429, Retry-After, a message saying how long to wait, never the wrong-password sentence. */
function assertThrottled(a: Answer, seconds?: number) {
  assert.equal(a.status, 429, JSON.stringify(a));
  assert.equal(a.error, "too_many_requests");
  assert.notEqual(a.msg, INVALID);
  assert.ok(a.retryAfter !== null && a.retryAfter >= 1, JSON.stringify(a));
  assert.match(a.msg, /try again in \d+ (second|minute)s?/);
  if (seconds !== undefined) {
    // The wait is counted from the attempt before, whose password check may itself take most of a second when the
    // machine is busy: the wait left is then a second less, never more.
    assert.ok(a.retryAfter === seconds || a.retryAfter === seconds - 1 && seconds > 1, JSON.stringify(a));
    assert.match(a.msg, new RegExp(`try again in ${a.retryAfter} seconds?`));
  }
}

function assertWrong(a: Answer) {
  assert.deepEqual([a.status, a.error, a.msg], [401, "invalid_credentials", INVALID], JSON.stringify(a));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a stranger's failures do not stop the owner signing in from another address", async () => {
  await using srv = await startServer({ env: { TRUST_PROXY: "1" } });
  for (let i = 0; i < 5; i++) assertWrong(await signIn(srv, "guess", STRANGER));
  for (let i = 0; i < 3; i++) {
    const a = await signIn(srv, "guess", STRANGER);
    assertThrottled(a);
    assert.match(a.msg, /from your address/);
  }
  // Even the right password waits from the stranger's address, and is told so.
  assertThrottled(await signIn(srv, ADMIN_PASSWORD, STRANGER));
  // Only the last X-Forwarded-For entry (the one the proxy wrote) counts: a client cannot write its way out.
  assertThrottled(await signIn(srv, "guess", `${OWNER}, ${STRANGER}`));
  const owner = await signIn(srv, ADMIN_PASSWORD, OWNER);
  assert.equal(owner.status, 200, JSON.stringify(owner));
  assert.equal((await signIn(srv, ADMIN_PASSWORD, `${STRANGER}, ${OWNER}`)).status, 200);
});

Deno.test("without TRUST_PROXY, X-Forwarded-For is ignored: the connection's address counts", async () => {
  await using srv = await startServer();
  for (let i = 0; i < 5; i++) assertWrong(await signIn(srv, "guess", STRANGER));
  const a = await signIn(srv, ADMIN_PASSWORD, OWNER);
  assertThrottled(a);
});

Deno.test("each attempt past the fifth waits twice as long as the one before; a success starts again", async () => {
  await using srv = await startServer({ env: { TRUST_PROXY: "1" } });
  const from = "192.0.2.10";
  for (let i = 0; i < 5; i++) assertWrong(await signIn(srv, "guess", from));
  assertThrottled(await signIn(srv, "guess", from), 1);
  await sleep(1100);
  assertWrong(await signIn(srv, "guess", from));
  assertThrottled(await signIn(srv, "guess", from), 2);
  assertThrottled(await signIn(srv, ADMIN_PASSWORD, from), 2);
  await sleep(2100);
  assertWrong(await signIn(srv, "guess", from));
  assertThrottled(await signIn(srv, ADMIN_PASSWORD, from), 4);
  await sleep(4100);
  assert.equal((await signIn(srv, ADMIN_PASSWORD, from)).status, 200);
  for (let i = 0; i < 5; i++) assertWrong(await signIn(srv, "guess", from));
  assertThrottled(await signIn(srv, "guess", from), 1);
});

Deno.test("200 sign-ins at once for one e-mail and address check at most 5 passwords", async () => {
  await using srv = await startServer({ env: { TRUST_PROXY: "1" } });
  const started = performance.now();
  const burst = Promise.all(Array.from({ length: 200 }, () => signIn(srv, "guess", STRANGER)));
  await sleep(50);
  const owner = await signIn(srv, ADMIN_PASSWORD, OWNER);
  const answers = await burst;
  const seconds = (performance.now() - started) / 1000;

  assert.equal(owner.status, 200, JSON.stringify(owner));
  assertWithinUnderLoad("the owner's sign-in beside the burst", owner.ms, 5000);
  const wrong = answers.filter((a) => a.status === 401);
  const throttled = answers.filter((a) => a.status === 429);
  for (const a of wrong) assertWrong(a);
  for (const a of throttled) assertThrottled(a);
  assert.equal(wrong.length + throttled.length, 200);
  // Five are checked at once; a sixth only 1 s after the fifth, a seventh 2 s after that, ...: had the burst taken
  // longer than a second, those few more could have been checked.
  assert.ok(wrong.length >= 5, `${wrong.length} checked`);
  assert.ok(wrong.length <= 5 + Math.floor(Math.log2(seconds + 1)), `${wrong.length} checked in ${seconds} s`);
  assertWithinUnderLoad("the burst", seconds * 1000, 20_000);
});

Deno.test("the queue of password hashes is bounded: excess attempts are refused at once with 429", async () => {
  await using srv = await startServer();
  const started = performance.now();
  // Every attempt its own e-mail, so no throttle holds any back: each wants a password hash.
  const burst = Promise.all(
    Array.from({ length: 300 }, (_, i) => signIn(srv, "guess", undefined, `nobody-${i}@example.com`)),
  );
  await sleep(50);
  let owner: Answer;
  let tries = 0;
  do {
    owner = await signIn(srv, ADMIN_PASSWORD);
    tries++;
    if (owner.status === 429) await sleep(owner.retryAfter! * 1000);
  } while (owner.status === 429 && tries < 20);
  const ownerSeconds = (performance.now() - started) / 1000;
  const answers = await burst;
  const seconds = (performance.now() - started) / 1000;

  assert.equal(owner.status, 200, JSON.stringify(owner));
  assertWithinUnderLoad(`the owner's sign-in (${tries} tries)`, ownerSeconds * 1000, 10_000);
  const busy = answers.filter((a) => a.status === 429);
  assert.ok(busy.length > 0, "some attempts are refused as busy");
  for (const a of busy) {
    assertThrottled(a, 1);
    assert.match(a.msg, /busy/);
  }
  for (const a of answers.filter((a) => a.status !== 429)) assertWrong(a);
  assertWithinUnderLoad("the slowest busy refusal", Math.max(...busy.map((a) => a.ms)), 5000);
  assertWithinUnderLoad("the burst", seconds * 1000, 20_000);
  // A refusal for busyness never counts: each of those e-mails still has its five attempts from this address.
  const refused = answers.findIndex((a) => a.status === 429);
  for (let i = 0; i < 5; i++) assertWrong(await signIn(srv, "guess", undefined, `nobody-${refused}@example.com`));
});

Deno.test("change_password: wrong current passwords are throttled per operator and address", async () => {
  await using srv = await startServer({ env: { TRUST_PROXY: "1" } });
  const from = "192.0.2.20";
  const signedIn = await signIn(srv, ADMIN_PASSWORD, from);
  const token = (await srv.login()).token;
  assert.equal(signedIn.status, 200);
  const change = (old_password: string, address: string) =>
    post(srv, "/api/v1/change_password", { old_password, new_password: "a-new-password-9" }, { from: address, token });

  for (let i = 0; i < 5; i++) {
    const a = await change("guess", from);
    assert.deepEqual([a.status, a.msg], [400, "Current password is incorrect."]);
  }
  const throttled = await change("guess", from);
  assertThrottled(throttled, 1);
  assert.match(throttled.msg, /current passwords/);
  assertThrottled(await change(ADMIN_PASSWORD, from));
  // Signing in is counted apart, and another address is not held up.
  assert.equal((await signIn(srv, ADMIN_PASSWORD, from)).status, 200);
  const other = await change(ADMIN_PASSWORD, OWNER);
  assert.equal(other.status, 200, JSON.stringify(other));
  assert.equal((await signIn(srv, "a-new-password-9", OWNER)).status, 200);
});
