/**
 * API tokens on several replicas (docs/REQUIREMENTS.md §12, §10): a token made through one server works on the other; revoked on
 * one, or its owner disabled on one, it is refused by the other's very next request (no cache on any replica).
 */
import assert from "node:assert/strict";
import { testDatabaseUrl } from "../../testing/postgres.ts";
import { startServer, type TestServer } from "../../testing/server.ts";

async function status(srv: TestServer, token: string, path = "/api/v1/devices"): Promise<number> {
  const r = await srv.fetch(path, { token });
  await r.body?.cancel();
  return r.status;
}

Deno.test("replicas: an API token revoked or disabled on one replica is dead on the other at once", async () => {
  const url = await testDatabaseUrl();
  await using a = await startServer({ env: { DATABASE_URL: url } });
  await using b = await startServer({ env: { DATABASE_URL: url } });
  const admin = (await a.login()).token;
  const json = { "content-type": "application/json" };
  const create = async (srv: TestServer, session: string, name: string) => {
    const r = await srv.fetch("/api/v1/api_tokens", {
      method: "POST",
      token: session,
      headers: json,
      body: JSON.stringify({ name, scopes: ["read"] }),
    });
    assert.equal(r.status, 201);
    return await r.json() as { _id: string; token: string };
  };

  const first = await create(a, admin, "ci one");
  assert.equal(await status(b, first.token), 200, "made on A, works on B");
  const revoked = await a.fetch(`/api/v1/api_tokens/${first._id}`, { method: "DELETE", token: admin });
  assert.equal(revoked.status, 204);
  assert.equal(await status(b, first.token), 401, "revoked on A, refused by B's next request");

  const op = await a.fetch("/api/v1/operators", {
    method: "POST",
    token: admin,
    headers: json,
    body: JSON.stringify({ email: "ci@example.com", password: "ci-pass-123" }),
  });
  const opId = (await op.json())._id;
  const second = await create(b, (await b.login("ci@example.com", "ci-pass-123")).token, "ci two");
  assert.equal(await status(a, second.token), 200);
  const off = await b.fetch(`/api/v1/operators/${opId}`, {
    method: "PATCH",
    token: (await b.login()).token,
    headers: json,
    body: JSON.stringify({ disabled: true }),
  });
  assert.equal(off.status, 200);
  await off.body?.cancel();
  assert.equal(await status(a, second.token), 401, "owner disabled on B, refused by A's next request");
});
