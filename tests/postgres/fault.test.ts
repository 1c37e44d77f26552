/**
 * Store down, server up (docs/REQUIREMENTS.md §10): PostgreSQL stopped under a running server, then started again. Meanwhile
 * /healthz is 503 and every API call fails within 2 s with 503 unavailable (never a hang, never a 500); afterwards
 * the server answers again without a restart, and nothing written before is lost.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";

const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0"] };

async function timed(call: () => Promise<Response>) {
  const started = performance.now();
  const res = await call();
  const ms = performance.now() - started;
  const body = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text();
  return { status: res.status, body, ms };
}

Deno.test("fault: PostgreSQL stopped and started again under a running server", async (t) => {
  await using pg = await startPostgres();
  await using srv = await startServer({ env: { DATABASE_URL: await pg.createDatabase() } });
  const api = await srv.login();
  for (let i = 0; i < 20; i++) {
    await new DeviceClient(`dev-${i}`, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({ versionInfo: VERSION });
  }
  await api.createProductType("Kept");
  const checkin = (id: string) =>
    srv.fetch(`/api/v1/device/${id}/checkin`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${DEVICE_API_KEY}` },
      body: JSON.stringify({ versionInfo: VERSION }),
    });
  const calls: [string, () => Promise<Response>][] = [
    ["GET /healthz", () => srv.fetch("/healthz")],
    ["GET devices", () => srv.fetch("/api/v1/devices?page=0&rowsPerPage=5", { token: api.token })],
    ["GET product types", () => srv.fetch("/api/v1/product_types", { token: api.token })],
    ["GET treatments", () => srv.fetch("/api/v1/treatments", { token: api.token })],
    ["POST check-in", () => checkin("dev-new")],
    [
      "POST login",
      () =>
        srv.fetch("/api/v1/login", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "admin@example.com", password: "admin-password-1" }),
        }),
    ],
  ];

  await t.step("up: healthz ok", async () => {
    const h = await timed(() => srv.fetch("/healthz"));
    assert.deepEqual([h.status, h.body.status], [200, "ok"]);
  });

  await pg.stop();

  await t.step("down: healthz and every call 503 unavailable within 2 s, twice over", async () => {
    for (let round = 0; round < 2; round++) {
      for (const [name, call] of calls) {
        const r = await timed(call);
        assert.equal(r.status, 503, `${name}: ${JSON.stringify(r.body)}`);
        if (name === "GET /healthz") assert.equal(r.body.status, "unavailable");
        else assert.equal(r.body.error, "unavailable", name);
        assert.ok(r.ms < 2000, `${name} took ${r.ms.toFixed(0)} ms`);
      }
    }
  });

  await pg.start();

  await t.step("back: the server recovers by itself, nothing lost", async () => {
    const deadline = Date.now() + 10_000;
    let h;
    do {
      h = await timed(() => srv.fetch("/healthz"));
      if (h.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    } while (Date.now() < deadline);
    assert.equal(h.status, 200);
    const page = await api.listDevices({ rowsPerPage: 100 });
    assert.equal(page.total, 20);
    assert.deepEqual((await api.listProductTypes()).map((p) => p.name), ["Kept"]);
    assert.equal((await checkin("dev-new")).status, 200);
    assert.equal((await api.listDevices({ rowsPerPage: 100 })).total, 21);
  });

  assert.doesNotMatch(srv.output(), / 500 /);
  assert.doesNotMatch(srv.output(), /Uncaught|internal/);
});
