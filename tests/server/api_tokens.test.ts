/**
 * API tokens (docs/REQUIREMENTS.md §12) over HTTP: made, shown once, used as a bearer wherever a session token is; within their
 * scopes and their owner's CURRENT role; dead at once when revoked, expired or their owner is disabled; never managing
 * operators or tokens; bad tokens throttled per address.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

async function call(srv: TestServer, token: string, method: string, path: string, body?: unknown) {
  const res = await srv.fetch(`/api/v1${path}`, {
    method,
    token,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}

async function signIn(srv: TestServer, email: string, password: string): Promise<string> {
  const r = await call(srv, "", "POST", "/login", { email, password });
  assert.equal(r.status, 200);
  return r.json.token;
}

Deno.test("API tokens: made once, scoped, bound to the owner's current role, revoked at once", async (t) => {
  await using srv = await startServer();
  const admin = await signIn(srv, ADMIN_EMAIL, ADMIN_PASSWORD);
  const op = await call(srv, admin, "POST", "/operators", { email: "ci@example.com", password: "ci-pass-123" });
  const opSession = await signIn(srv, "ci@example.com", "ci-pass-123");
  let secret = "";
  let tokenId = "";

  await t.step("POST api_tokens answers the secret once; only its hash is stored", async () => {
    const made = await call(srv, opSession, "POST", "/api_tokens", {
      name: "  Nightly CI  ",
      scopes: ["firmware:write", "devices:write"],
    });
    assert.equal(made.status, 201);
    assert.match(made.json.token, /^tdc_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual({ ...made.json, token: "", _id: "", createdAt: "" }, {
      _id: "",
      name: "Nightly CI",
      scopes: ["firmware:write", "devices:write"],
      createdAt: "",
      expiresAt: null,
      lastUsedAt: null,
      owner: "ci@example.com",
      token: "",
    });
    secret = made.json.token;
    tokenId = made.json._id;
    const listed = await call(srv, opSession, "GET", "/api_tokens");
    assert.deepEqual(listed.json.map((x: { _id: string }) => x._id), [tokenId]);
    assert.equal(listed.json[0].token, undefined);
    const files = ["console.sqlite3", "console.sqlite3-wal"].map((f) => `${srv.dataDir}/${f}`);
    const bytes = await Promise.all(files.map((f) => Deno.readFile(f).catch(() => new Uint8Array())));
    if (bytes[0].length) {
      const text = bytes.map((b) => new TextDecoder("latin1").decode(b)).join("");
      assert.ok(!text.includes(secret.slice(4)), "the secret is not in the database");
      assert.ok(text.includes(createHash("sha256").update(secret).digest("hex")), "its sha256 is");
    }
  });

  await t.step("the token works as a bearer within its scopes; a write scope reads too", async () => {
    assert.equal((await call(srv, secret, "GET", "/devices")).status, 200);
    assert.deepEqual((await call(srv, secret, "GET", "/me")).json, { email: "ci@example.com", role: "operator" });
    const pt = await call(srv, secret, "POST", "/product_types", { name: "By token" });
    assert.deepEqual([pt.status, pt.json.error], [403, "forbidden"]);
    assert.match(pt.json.msg, /product_types:write scope/);
    const [dt] = (await call(srv, secret, "GET", "/device_types")).json;
    const patched = await call(srv, secret, "PATCH", `/device_types/${dt._id}`, { _id: dt._id, defaultFirmware: null });
    assert.equal(patched.status, 200);
  });

  await t.step("lastUsedAt is written on use, at most about once a minute", async () => {
    const first = (await call(srv, opSession, "GET", "/api_tokens")).json[0].lastUsedAt;
    assert.ok(first && Date.now() - Date.parse(first) < 60_000);
    await call(srv, secret, "GET", "/devices");
    assert.equal((await call(srv, opSession, "GET", "/api_tokens")).json[0].lastUsedAt, first);
  });

  await t.step("no token manages operators or tokens, nor changes a password (403)", async () => {
    const { json: adminMade } = await call(srv, admin, "POST", "/api_tokens", {
      name: "admin all",
      scopes: ["read", "firmware:write", "treatments:write", "devices:write", "product_types:write"],
    });
    for (
      const [method, path, body] of [
        ["GET", "/operators"],
        ["POST", "/operators", { email: "x@example.com", password: "x-pass-123" }],
        ["PATCH", `/operators/${op.json._id}`, { role: "admin" }],
        ["POST", `/operators/${op.json._id}/reset_password`, { password: "x-pass-123" }],
        ["GET", "/api_tokens"],
        ["POST", "/api_tokens", { name: "child", scopes: ["read"] }],
        ["DELETE", `/api_tokens/${tokenId}`],
        ["POST", "/change_password", { old_password: ADMIN_PASSWORD, new_password: "other-pass-1" }],
      ] as [string, string, unknown?][]
    ) {
      const r = await call(srv, adminMade.token, method, path, body);
      assert.deepEqual([r.status, r.json.error], [403, "forbidden"], `${method} ${path}`);
    }
    assert.equal((await call(srv, opSession, "GET", "/api_tokens")).json.length, 1, "the token was not revoked");
  });

  await t.step("scopes beyond the owner's role are refused; an operator manages only their own", async () => {
    await call(srv, admin, "POST", "/operators", { email: "v@example.com", role: "viewer", password: "v-pass-123" });
    const viewer = await signIn(srv, "v@example.com", "v-pass-123");
    const wide = await call(srv, viewer, "POST", "/api_tokens", { name: "w", scopes: ["devices:write"] });
    assert.deepEqual([wide.status, wide.json.error], [403, "forbidden"]);
    const read = await call(srv, viewer, "POST", "/api_tokens", { name: "r", scopes: ["read"] });
    assert.equal(read.status, 201);
    const notMine = await call(srv, viewer, "DELETE", `/api_tokens/${tokenId}`);
    assert.deepEqual([notMine.status, notMine.json.error], [403, "forbidden"]);
    assert.deepEqual((await call(srv, viewer, "GET", "/api_tokens")).json.map((x: { name: string }) => x.name), [
      "r",
    ]);
    const all = (await call(srv, admin, "GET", "/api_tokens")).json.map((x: { owner: string }) => x.owner).sort();
    assert.deepEqual(all, [ADMIN_EMAIL, "ci@example.com", "v@example.com"]);
    for (
      const body of [
        { name: "", scopes: ["read"] },
        { name: "x", scopes: [] },
        { name: "x", scopes: ["admin"] },
        { name: "x", scopes: ["read", "read"] },
        { name: "x", scopes: ["read"], expiresAt: "2001-01-01T00:00:00Z" },
        { name: "x", scopes: ["read"], expiresAt: "tomorrow" },
        { name: "x", scopes: ["read"], owner: "someone" },
      ]
    ) {
      const r = await call(srv, viewer, "POST", "/api_tokens", body);
      assert.deepEqual([r.status, r.json.error], [400, "invalid_request"], JSON.stringify(body));
    }
  });

  await t.step("a demoted owner's token is limited to the new role, per request", async () => {
    await call(srv, admin, "PATCH", `/operators/${op.json._id}`, { role: "viewer" });
    assert.equal((await call(srv, secret, "GET", "/devices")).status, 200);
    const [dt] = (await call(srv, secret, "GET", "/device_types")).json;
    const refused = await call(srv, secret, "PATCH", `/device_types/${dt._id}`, { _id: dt._id, defaultFirmware: null });
    assert.deepEqual([refused.status, refused.json.error], [403, "forbidden"]);
    assert.match(refused.json.msg, /operator role; you are signed in as viewer/);
    await call(srv, admin, "PATCH", `/operators/${op.json._id}`, { role: "operator" });
    const again = await call(srv, secret, "PATCH", `/device_types/${dt._id}`, { _id: dt._id, defaultFirmware: null });
    assert.equal(again.status, 200);
  });

  await t.step("disabling the owner ends the token (401); enabling brings it back", async () => {
    await call(srv, admin, "PATCH", `/operators/${op.json._id}`, { disabled: true });
    const r = await call(srv, secret, "GET", "/devices");
    assert.deepEqual([r.status, r.json.error], [401, "unauthorized"]);
    await call(srv, admin, "PATCH", `/operators/${op.json._id}`, { disabled: false });
    assert.equal((await call(srv, secret, "GET", "/devices")).status, 200);
  });

  await t.step("the audit trail: create and revoke, and what a token does under its own name", async () => {
    const checkin = await srv.fetch("/api/v1/device/tok-01/checkin", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${DEVICE_API_KEY}` },
      body: JSON.stringify({ versionInfo: { app: "1.0.0", os: "linux", channels: [] } }),
    });
    assert.equal(checkin.status, 200);
    await checkin.body?.cancel();
    const patched = await call(srv, secret, "PATCH", "/devices/tok-01", { deviceId: "tok-01", firmware: null });
    assert.equal(patched.status, 200);
    const entries = (await call(srv, admin, "GET", "/audit?rowsPerPage=100")).json.data as {
      action: string;
      actor: { type: string; id: string; name: string };
      target: { type: string; id: string } | null;
      details: Record<string, unknown>;
    }[];
    const made = entries.find((e) => e.action === "api_token.create" && e.target?.id === tokenId)!;
    assert.deepEqual(made.actor, { type: "operator", id: op.json._id, name: "ci@example.com" });
    assert.deepEqual(made.details.scopes, ["firmware:write", "devices:write"]);
    assert.ok(!JSON.stringify(entries).includes(secret.slice(4)), "no secret in the trail");
    const update = entries.find((e) => e.action === "device.update" && e.target?.id === "tok-01")!;
    assert.deepEqual(update.actor, { type: "api_token", id: tokenId, name: "Nightly CI" });
  });

  await t.step("revoked: dead at once (401); revoking again is 404", async () => {
    const session = await signIn(srv, "ci@example.com", "ci-pass-123");
    assert.equal((await call(srv, session, "DELETE", `/api_tokens/${tokenId}`)).status, 204);
    const r = await call(srv, secret, "GET", "/devices");
    assert.deepEqual([r.status, r.json.error], [401, "unauthorized"]);
    assert.equal((await call(srv, session, "DELETE", `/api_tokens/${tokenId}`)).status, 404);
    const revoked = (await call(srv, admin, "GET", `/audit?action=api_token.revoke&targetId=${tokenId}`)).json.data;
    assert.equal(revoked.length, 1);
    assert.equal(revoked[0].actor.name, "ci@example.com");
  });

  await t.step("past its expiry: 401", async () => {
    const made = await call(srv, admin, "POST", "/api_tokens", {
      name: "short",
      scopes: ["read"],
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    assert.equal(made.status, 201);
    assert.equal((await call(srv, made.json.token, "GET", "/devices")).status, 200);
    await new Promise((r) => setTimeout(r, 1600));
    const r = await call(srv, made.json.token, "GET", "/devices");
    assert.deepEqual([r.status, r.json.error], [401, "unauthorized"]);
    assert.match(r.json.msg, /expired/);
  });
});

Deno.test("API tokens: repeated bad tokens from one address are throttled (429); good ones still pass", async () => {
  await using srv = await startServer();
  const admin = await signIn(srv, ADMIN_EMAIL, ADMIN_PASSWORD);
  const good = (await call(srv, admin, "POST", "/api_tokens", { name: "good", scopes: ["read"] })).json.token;
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) {
    const bad = `tdc_${"A".repeat(42)}${i}`;
    const r = await call(srv, bad, "GET", "/devices");
    statuses.push(r.status);
    if (r.status === 429) {
      assert.equal(r.json.error, "too_many_requests");
      assert.ok(Number(r.headers.get("retry-after")) >= 1);
    }
  }
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
  const malformed = await call(srv, "tdc_short", "GET", "/devices");
  assert.equal(malformed.status, 429);
  assert.equal((await call(srv, good, "GET", "/devices")).status, 200);
  assert.equal((await call(srv, admin, "GET", "/devices")).status, 200, "sessions are not held up");
});
