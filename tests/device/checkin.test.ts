import assert from "node:assert/strict";
import { ApiError, DeviceClient } from "../../shared/client.ts";
import { DeviceConfig } from "../../shared/schemas/device_api.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0", "ch-b 1.1"] };

function device(srv: TestServer, id: string, apiKey = DEVICE_API_KEY) {
  return new DeviceClient(id, { baseUrl: srv.url, apiKey });
}

function post(srv: TestServer, path: string, body: unknown, key: string | null = DEVICE_API_KEY) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  return srv.fetch(`/api/v1/device/${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function expectError(res: Response, status: number, error: string) {
  assert.equal(res.status, status);
  const body = await res.json();
  assert.equal(body.error, error);
  assert.equal(typeof body.msg, "string");
  assert.ok(body.msg.length > 0);
}

Deno.test("device API without DEVICE_API_KEY answers 503 on every route", async () => {
  await using srv = await startServer({ env: { DEVICE_API_KEY: "" } });
  await expectError(await post(srv, "dev-1/checkin", { versionInfo: VERSION }), 503, "unavailable");
  await expectError(await post(srv, "dev-1/checkin", { versionInfo: VERSION }, null), 503, "unavailable");
  for (const path of ["dev-1/config", "dev-1/firmware"]) {
    await expectError(
      await srv.fetch(`/api/v1/device/${path}`, { token: "whatever-key-0123456789" }),
      503,
      "unavailable",
    );
  }
  const api = await srv.login();
  assert.equal((await api.listDevices()).total, 0);
});

Deno.test("device check-in", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();

  await t.step("a missing or wrong key is 401 and creates nothing", async () => {
    await expectError(await post(srv, "dev-1/checkin", { versionInfo: VERSION }, null), 401, "unauthorized");
    await expectError(await post(srv, "dev-1/checkin", { versionInfo: VERSION }, "wrong-key"), 401, "unauthorized");
    await expectError(
      await post(srv, "dev-1/checkin", { versionInfo: VERSION }, `${DEVICE_API_KEY}x`),
      401,
      "unauthorized",
    );
    // an operator token is not a device key
    await expectError(await post(srv, "dev-1/checkin", { versionInfo: VERSION }, api.token), 401, "unauthorized");
    await expectError(await srv.fetch("/api/v1/device/dev-1/config", { token: "wrong-key" }), 401, "unauthorized");
    await expectError(await srv.fetch("/api/v1/device/dev-1/firmware"), 401, "unauthorized");
    const err = await device(srv, "dev-1", "wrong-key-0123456789").checkin({ versionInfo: VERSION }).catch((e) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 401);
    assert.equal((await api.listDevices()).total, 0);
  });

  await t.step("bad device ids and bodies are 400 naming the field, and create nothing", async () => {
    for (const id of ["-starts-with-dash", "has%20space", "a".repeat(129), "sl%2Fash", "%C3%A9t%C3%A9"]) {
      const res = await post(srv, `${id}/checkin`, { versionInfo: VERSION });
      assert.equal(res.status, 400, id);
      const body = await res.json();
      assert.equal(body.error, "invalid_request");
      assert.match(body.msg, /deviceId/);
    }
    const bad: [unknown, RegExp][] = [
      [{}, /versionInfo/],
      [{ versionInfo: VERSION, extra: 1 }, /extra/],
      [{ versionInfo: { ...VERSION, serial: "x" } }, /serial/],
      [{ versionInfo: { ...VERSION, app: 2 } }, /versionInfo\.app/],
      [{ versionInfo: { ...VERSION, channels: "ch-a" } }, /versionInfo\.channels/],
      [{ versionInfo: { ...VERSION, channels: [1] } }, /versionInfo\.channels\.0/],
      [{ versionInfo: { app: "1" } }, /versionInfo\.os/],
      [{ versionInfo: null }, /versionInfo/],
      [[], /body/],
      ["not json", /JSON/],
    ];
    for (const [body, msg] of bad) {
      const res = await post(srv, "dev-1/checkin", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const json = await res.json();
      assert.equal(json.error, "invalid_request");
      assert.match(json.msg, msg);
    }
    const res = await srv.fetch("/api/v1/device/dev-1/checkin", {
      method: "POST",
      headers: { authorization: `Bearer ${DEVICE_API_KEY}`, "content-type": "text/plain" },
      body: JSON.stringify({ versionInfo: VERSION }),
    });
    assert.equal(res.status, 415);
    await res.body?.cancel();
    assert.equal((await api.listDevices()).total, 0);
  });

  await t.step("an unknown device has no config and no firmware (404)", async () => {
    await expectError(await srv.fetch("/api/v1/device/dev-1/config", { token: DEVICE_API_KEY }), 404, "not_found");
    await expectError(await srv.fetch("/api/v1/device/dev-1/firmware", { token: DEVICE_API_KEY }), 404, "not_found");
  });

  await t.step("the first check-in creates the device and answers with its config", async () => {
    const before = new Date().toISOString();
    const config = await device(srv, "dev-1").checkin({ versionInfo: VERSION });
    assert.deepEqual(config, { deviceId: "dev-1", productType: null, modules: [], treatments: [], firmware: null });
    const d = await api.getDevice("dev-1");
    assert.equal(d.deviceId, "dev-1");
    assert.deepEqual(d.versionInfo, VERSION);
    assert.ok(d.lastLoggedIn! >= before);
    assert.equal(d.createdAt, d.lastLoggedIn);
    assert.equal(d.updatedAt, d.createdAt);
    assert.equal(d.productTypeId, null);
    assert.deepEqual(d.moduleIds, []);
    assert.deepEqual(d.additionalTreatmentIds, []);
    assert.equal(d.firmware, null);
    assert.deepEqual(await device(srv, "dev-1").config(), config);
  });

  await t.step("a later check-in updates lastLoggedIn and versionInfo, keeps createdAt", async () => {
    const first = await api.getDevice("dev-1");
    await new Promise((r) => setTimeout(r, 5));
    const sent = Date.now();
    await device(srv, "dev-1").checkin({ versionInfo: VERSION });
    // A check-in that changes nothing writes its last-seen time in the next batch (≤ 1 s; a generous bound here).
    let same = await api.getDevice("dev-1");
    while (same.lastLoggedIn === first.lastLoggedIn && Date.now() - sent < 10_000) {
      await new Promise((r) => setTimeout(r, 50));
      same = await api.getDevice("dev-1");
    }
    console.log(`lastLoggedIn written ${Date.now() - sent} ms after the check-in was sent`);
    assert.ok(same.lastLoggedIn! > first.lastLoggedIn!);
    assert.equal(same.createdAt, first.createdAt);
    assert.equal(same.updatedAt, first.updatedAt, "an unchanged version info does not count as an update");

    await new Promise((r) => setTimeout(r, 5));
    const next = { app: "2.5.0", os: null, channels: [] };
    await device(srv, "dev-1").checkin({ versionInfo: next });
    const changed = await api.getDevice("dev-1");
    assert.deepEqual(changed.versionInfo, next);
    assert.ok(changed.lastLoggedIn! > same.lastLoggedIn!);
    assert.equal(changed.updatedAt, changed.lastLoggedIn);
    assert.equal(changed.createdAt, first.createdAt);
    assert.equal((await api.listDevices()).total, 1);
  });

  await t.step("200 concurrent check-ins of distinct devices all land", async () => {
    const ids = Array.from({ length: 200 }, (_, i) => `fleet-${String(i).padStart(3, "0")}`);
    const configs = await Promise.all(
      ids.map((id, i) => device(srv, id).checkin({ versionInfo: { app: `1.${i}`, os: "os", channels: [] } })),
    );
    configs.forEach((c, i) => {
      assert.equal(DeviceConfig.parse(c).deviceId, ids[i]);
    });
    const listed = await api.listDevices({ q: "fleet-", rowsPerPage: 100 });
    assert.equal(listed.total, 200);
    for (const [i, id] of ids.entries()) {
      if (i % 20 !== 0) continue;
      assert.deepEqual((await api.getDevice(id)).versionInfo, { app: `1.${i}`, os: "os", channels: [] });
    }
  });

  await t.step("200 concurrent check-ins of one device: one row, the last write wins whole", async () => {
    const versions = Array.from({ length: 200 }, (_, i) => ({ app: `3.${i}`, os: `os-${i}`, channels: [`c${i}`] }));
    const started = new Date().toISOString();
    const results = await Promise.allSettled(versions.map((v) => device(srv, "busy-1").checkin({ versionInfo: v })));
    assert.deepEqual(results.filter((r) => r.status === "rejected"), []);
    const d = await api.getDevice("busy-1");
    const i = versions.findIndex((v) => v.app === d.versionInfo?.app);
    assert.ok(i >= 0);
    assert.deepEqual(d.versionInfo, versions[i], "app, os and channels come from the same check-in");
    assert.ok(d.lastLoggedIn! >= started);
    assert.equal((await api.listDevices({ q: "busy-" })).total, 1);
  });

  await t.step("check-ins never undo an operator's concurrent change", async () => {
    const pt = await api.createProductType("Checkin race type");
    await device(srv, "race-1").checkin({ versionInfo: VERSION });
    const checkins = Array.from({ length: 100 }, () => device(srv, "race-1").checkin({ versionInfo: VERSION }));
    const patch = api.patchDevice({ deviceId: "race-1", productTypeId: pt._id });
    await Promise.all([...checkins, patch]);
    assert.equal((await api.getDevice("race-1")).productTypeId, pt._id);
    const config = await device(srv, "race-1").config();
    assert.deepEqual(config.productType, { _id: pt._id, name: pt.name, theme: pt.theme });
  });
});
