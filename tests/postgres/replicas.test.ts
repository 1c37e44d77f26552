/**
 * Several servers on one PostgreSQL database (docs/REQUIREMENTS.md §10): any replica answers any request alike, at once. Each
 * server has a DATA_DIR of its own and shares nothing with the others but the database.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { bytesSource } from "../../testing/files.ts";
import { testDatabaseUrl } from "../../testing/postgres.ts";
import { startBucket } from "../../testing/s3.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0"] };

async function replicas(n: number, env: Record<string, string> = {}): Promise<TestServer[] & AsyncDisposable> {
  const url = await testDatabaseUrl();
  const servers = await Promise.all(
    Array.from({ length: n }, () => startServer({ env: { DATABASE_URL: url, ...env } })),
  );
  return Object.assign(servers, {
    async [Symbol.asyncDispose]() {
      await Promise.all(servers.map((s) => s[Symbol.asyncDispose]()));
    },
  });
}

const signIn = (srv: TestServer, password: string) =>
  srv.fetch("/api/v1/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: ADMIN_EMAIL, password }),
  });

Deno.test("replicas: a token from one works on the other (the generated secret is shared)", async () => {
  await using servers = await replicas(2);
  const [a, b] = servers;
  const api = await a.login();
  const res = await b.fetch("/api/v1/devices", { token: api.token });
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("replicas: a password change on A ends the token on B at once", async () => {
  await using servers = await replicas(2);
  const [a, b] = servers;
  const onA = await a.login();
  const onB = await b.login();
  assert.equal((await b.fetch("/api/v1/devices", { token: onA.token })).status, 200);
  await onA.changePassword({ old_password: ADMIN_PASSWORD, new_password: "a-new-password-2" });
  for (const token of [onA.token, onB.token]) {
    const res = await b.fetch("/api/v1/devices", { token });
    assert.equal(res.status, 401);
    await res.body?.cancel();
  }
  await b.login(ADMIN_EMAIL, "a-new-password-2");
});

Deno.test("replicas: sign-in throttling counts across them", async () => {
  await using servers = await replicas(2);
  const [a, b] = servers;
  // Five free attempts from one address, spread over both; the sixth waits, on either.
  for (let i = 0; i < 5; i++) {
    const res = await signIn(i % 2 ? a : b, "wrong-password");
    assert.equal(res.status, 401);
    await res.body?.cancel();
  }
  for (const srv of [a, b]) {
    const res = await signIn(srv, "wrong-password");
    assert.equal(res.status, 429);
    assert.equal((await res.json()).error, "too_many_requests");
  }
});

Deno.test("replicas: a PATCH through A is in the next list and get from B", async () => {
  await using servers = await replicas(2);
  const [a, b] = servers;
  await new DeviceClient("dev-1", { baseUrl: a.url, apiKey: DEVICE_API_KEY }).checkin({ versionInfo: VERSION });
  const apiA = await a.login(), apiB = await b.login();
  const pt = await apiA.createProductType("Replicated");
  // B's page cache holds the device as it was.
  assert.equal((await apiB.listDevices()).data[0].productTypeId, null);
  assert.equal((await apiB.listDevices()).data[0].productTypeId, null);
  for (let i = 0; i < 5; i++) {
    const productTypeId = i % 2 ? null : pt._id;
    await apiA.patchDevice({ deviceId: "dev-1", productTypeId });
    assert.equal((await apiB.listDevices()).data[0].productTypeId, productTypeId);
    assert.equal((await apiB.getDevice("dev-1")).productTypeId, productTypeId);
  }
  // A device that checks in through B is in A's next list.
  await new DeviceClient("dev-2", { baseUrl: b.url, apiKey: DEVICE_API_KEY }).checkin({ versionInfo: VERSION });
  assert.deepEqual((await apiA.listDevices()).data.map((d) => d.deviceId), ["dev-1", "dev-2"]);
});

Deno.test("replicas: three started at once on an empty database: one admin, one device type, one demo set", async () => {
  await using servers = await replicas(3, { DEMO: "1", ADMIN_EMAIL: "", ADMIN_PASSWORD: "" });
  const outputs = servers.map((s) => s.output()).join("\n");
  const created = [...outputs.matchAll(/Created operator admin@example.com with password: (\S+)/g)];
  assert.equal(created.length, 1, outputs);
  assert.equal([...outputs.matchAll(/DEMO=1: added/g)].length, 1, outputs);
  assert.equal([...outputs.matchAll(/already holds data/g)].length, 2, outputs);
  const password = created[0][1];
  for (const srv of servers) {
    const api = await srv.login(ADMIN_EMAIL, password);
    assert.equal((await api.listDeviceTypes()).length, 1);
    assert.equal((await api.listDevices()).total, 300);
    assert.equal((await api.listProductTypes()).length, 5);
    assert.equal((await api.listFirmwares()).length, 2);
  }
});

Deno.test("replicas: with a shared bucket, a firmware uploaded through A downloads from B", async () => {
  await using bucket = await startBucket();
  const url = await testDatabaseUrl();
  await using a = await startServer({ env: { DATABASE_URL: url }, bucket });
  await using b = await startServer({ env: { DATABASE_URL: url }, bucket });
  const bytes = xzBytes("firmware through replica A ".repeat(500));
  const fw = await (await a.login()).uploadFirmware(bytesSource("replicated.xz", bytes));
  const apiB = await b.login();
  assert.deepEqual((await apiB.listFirmwares()).map((f) => f._id), [fw._id]);
  await new DeviceClient("dev-fw", { baseUrl: b.url, apiKey: DEVICE_API_KEY }).checkin({ versionInfo: VERSION });
  await apiB.patchDevice({ deviceId: "dev-fw", firmware: fw._id });
  const res = await b.fetch("/api/v1/device/dev-fw/firmware", {
    headers: { authorization: `Bearer ${DEVICE_API_KEY}` },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
});
