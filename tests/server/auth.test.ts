import assert from "node:assert/strict";
import { sign } from "hono/jwt";
import { ApiError } from "../../shared/client.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer } from "../../testing/server.ts";

const JWT_SECRET = "test-secret-0123456789-0123456789-abcdef";

async function rejects(p: Promise<unknown>, status: number, code?: string): Promise<ApiError> {
  const err = await p.then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `expected ApiError, got ${err}`);
  assert.equal(err.status, status, err.message);
  if (code) assert.equal(err.code, code);
  return err;
}

Deno.test("login, tokens and password changes", async (t) => {
  await using srv = await startServer({ env: { JWT_SECRET } });

  await t.step("GET /healthz answers without auth", async () => {
    const res = await srv.fetch("/healthz");
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "ok", storage: "ok" });
  });

  await t.step("login returns an HS256 token with sub, iat, exp", async () => {
    const api = await srv.login();
    const [header, payload] = api.token.split(".").slice(0, 2).map((p) =>
      JSON.parse(atob(p.replace(/-/g, "+").replace(/_/g, "/")))
    );
    assert.equal(header.alg, "HS256");
    assert.equal(payload.sub, ADMIN_EMAIL);
    assert.equal(payload.exp - payload.iat, 43200);
    assert.ok(Array.isArray(await api.listDeviceTypes()));
  });

  await t.step("any login failure is 401 invalid_credentials with the specified text", async () => {
    for (
      const body of [
        { email: ADMIN_EMAIL, password: "wrong" },
        { email: "nobody@example.com", password: ADMIN_PASSWORD },
        { email: 1, password: 2 },
        { email: ADMIN_EMAIL },
        "not json",
      ]
    ) {
      const res = await srv.fetch("/api/v1/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: "invalid_credentials", msg: "Invalid email address or password." });
    }
  });

  await t.step("missing, malformed, forged, alg none and expired tokens get 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = await sign(
      { sub: ADMIN_EMAIL, iat: now, exp: now + 60, pwv: 1 },
      "another-secret-0123456789abcdef-xyz",
      "HS256",
    );
    const expired = await sign({ sub: ADMIN_EMAIL, iat: now - 100, exp: now - 10, pwv: 1 }, JWT_SECRET, "HS256");
    const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: ADMIN_EMAIL, iat: now, exp: now + 60, pwv: 1 })}.`;
    const valid = await sign({ sub: ADMIN_EMAIL, iat: now, exp: now + 60, pwv: 1 }, JWT_SECRET, "HS256");
    assert.equal((await srv.fetch("/api/v1/devices", { token: valid })).status, 200);
    for (const token of [undefined, "garbage", forged, expired, none]) {
      const res = await srv.fetch("/api/v1/devices", { token });
      assert.equal(res.status, 401, `token ${token}`);
      assert.equal((await res.json()).error, "unauthorized");
    }
  });

  await t.step("change_password: wrong old, short new, unknown members", async () => {
    const api = await srv.login();
    const e1 = await rejects(
      api.changePassword({ old_password: "nope", new_password: "long-enough-1" }),
      400,
      "invalid_request",
    );
    assert.equal(e1.msg, "Current password is incorrect.");
    const e2 = await rejects(api.changePassword({ old_password: ADMIN_PASSWORD, new_password: "short" }), 400);
    assert.match(e2.msg, /new_password.*at least 8 characters/);
    const res = await srv.fetch("/api/v1/change_password", {
      method: "POST",
      token: api.token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ old_password: ADMIN_PASSWORD, new_password: "long-enough-1", extra: 1 }),
    });
    assert.equal(res.status, 400);
    assert.match((await res.json()).msg, /extra/);
    // Nothing changed: the old password still works.
    await srv.login();
  });

  await t.step("a password change revokes earlier tokens", async () => {
    const before = await srv.login();
    assert.deepEqual(await before.changePassword({ old_password: ADMIN_PASSWORD, new_password: "new-password-2" }), {});
    await rejects(before.listDevices(), 401, "unauthorized");
    await rejects(srv.client().login(ADMIN_EMAIL, ADMIN_PASSWORD), 401, "invalid_credentials");
    const after = await srv.login(ADMIN_EMAIL, "new-password-2");
    await after.listDevices();
  });

  await t.step("repeated failures for one e-mail are refused with 429", async () => {
    const email = "throttled@example.com";
    for (let i = 0; i < 5; i++) await rejects(srv.client().login(email, "bad"), 401);
    // The sixth waits 1 s after the fifth, the seventh 2 s after the sixth...: on a machine so busy that a password
    // check takes longer than the wait, an attempt may find it over, but not the next, whose wait doubled.
    let res: Response;
    for (let attempt = 6;; attempt++) {
      res = await srv.fetch("/api/v1/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: "bad" }),
      });
      if (res.status === 429 || attempt === 9) break;
      assert.equal(res.status, 401);
      await res.body?.cancel();
    }
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get("retry-after")) > 0);
    assert.equal((await res.json()).error, "too_many_requests");
    // Another e-mail is not affected.
    await srv.login(ADMIN_EMAIL, "new-password-2");
  });

  await t.step("logs never show a password or token", () => {
    assert.ok(!srv.output().includes("new-password-2"));
    assert.ok(!srv.output().includes(ADMIN_PASSWORD));
    assert.match(srv.output(), /POST \/api\/v1\/login 401 [\d.]+ms/);
  });

  await t.step("unknown API paths are JSON 404; security headers are set", async () => {
    const api = await srv.login(ADMIN_EMAIL, "new-password-2");
    const res = await srv.fetch("/api/v1/nope", { token: api.token });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error, "not_found");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  });
});

Deno.test("bootstrap operator without ADMIN_*: admin@example.com with a printed password", async () => {
  await using srv = await startServer({ env: { ADMIN_EMAIL: "", ADMIN_PASSWORD: "" } });
  const m = /Created operator admin@example.com with password: (\S+)/.exec(srv.output());
  assert.ok(m, srv.output());
  await srv.login("admin@example.com", m[1]);
  if (srv.engineEnv.DATABASE_URL) {
    // PostgreSQL keeps the generated secret in the database, so that every replica signs alike (docs/REQUIREMENTS.md §10).
    assert.equal(await Deno.stat(`${srv.dataDir}/jwt_secret`).catch(() => null), null);
  } else {
    const secret = await Deno.stat(`${srv.dataDir}/jwt_secret`);
    assert.equal(secret.mode! & 0o777, 0o600);
  }
});

Deno.test("a bad configuration value stops the server with one line naming it", async () => {
  for (
    const [name, value] of [["PORT", "abc"], ["TOKEN_TTL_SECONDS", "-1"], ["MAX_FIRMWARE_BYTES", "x"], [
      "DEVICE_API_KEY",
      "short",
    ]]
  ) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "server/main.ts"],
      env: { [name]: value, DATA_DIR: await Deno.makeTempDir() },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 1);
    const err = new TextDecoder().decode(out.stderr).trim();
    assert.equal(err.split("\n").length, 1, err);
    assert.match(err, new RegExp(`^Invalid configuration: ${name} `));
  }
});

Deno.test("deno task user add / reset-password", async () => {
  await using srv = await startServer();
  const run = async (args: string[], input: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "server/user.ts", ...args],
      env: { DATA_DIR: srv.dataDir, ...srv.engineEnv },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(input));
    await w.close();
    const out = await child.output();
    return { code: out.code, text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
  };
  assert.equal((await run(["add", "ops@example.com"], "ops-password-1\n")).code, 0);
  await srv.login("ops@example.com", "ops-password-1");
  assert.equal((await run(["add", "ops@example.com"], "x\n")).code, 1);
  assert.equal((await run(["add", "ops2@example.com"], "short\n")).code, 1);
  const before = await srv.login("ops@example.com", "ops-password-1");
  // Used first, so the running server holds its operator's answer (on SQLite, in memory): the reset beside it ends it.
  for (let i = 0; i < 3; i++) await before.listDevices();
  assert.equal((await run(["reset-password", "ops@example.com"], "ops-password-2\n")).code, 0);
  await rejects(before.listDevices(), 401);
  await srv.login("ops@example.com", "ops-password-2");
  assert.equal((await run(["reset-password", "ghost@example.com"], "whatever-123\n")).code, 1);
  assert.equal((await run(["frobnicate"], "")).code, 2);
  // --role: default operator; a role of one's choice; anything else is a usage error.
  assert.equal((await srv.login("ops@example.com", "ops-password-2")).token.length > 0, true);
  assert.deepEqual(
    await (await srv.fetch("/api/v1/me", { token: (await srv.login("ops@example.com", "ops-password-2")).token }))
      .json(),
    {
      email: "ops@example.com",
      role: "operator",
    },
  );
  const viewer = await run(["add", "audit@example.com", "--role", "viewer"], "audit-password-1\n");
  assert.equal(viewer.code, 0);
  assert.match(viewer.text, /Added operator audit@example\.com \(viewer\)\./);
  const me =
    await (await srv.fetch("/api/v1/me", { token: (await srv.login("audit@example.com", "audit-password-1")).token }))
      .json();
  assert.equal(me.role, "viewer");
  assert.equal((await run(["add", "x@example.com", "--role", "root"], "x-password-1\n")).code, 2);
});
