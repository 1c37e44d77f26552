/**
 * docs/REQUIREMENTS.md §13's later points over the routes, in process: a default's firmware rolled out again never stalls on
 * the devices already running it; retry and its refusals; per-stage numbers; a device's firmware in effect and why;
 * how many devices a default reaches; §16's stale and pending in the overview.
 */
import assert from "node:assert/strict";
import type { DeviceType } from "../../shared/schemas/device_type.ts";
import type { Rollout } from "../../shared/schemas/rollout.ts";
import { DEVICE_KEY, refusal, testApp } from "./app.ts";

const INFO = { app: "1.0", os: "os", channels: ["c1"] };

Deno.test("rollout routes: a default rolled out again, retry, stages, firmware in effect, a default's reach", async (t) => {
  await using app = await testApp();
  const token = await app.login();
  const device = (id: string, what: "checkin" | "status", json: unknown) =>
    app.request(`/api/v1/device/${id}/${what}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${DEVICE_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify(json),
    });
  const get = async (path: string) => {
    const res = await app.request(`/api/v1/${path}`, { token });
    assert.equal(res.status, 200, `${path}: ${res.status}`);
    return await res.json();
  };
  const post = (path: string, json?: unknown) =>
    app.request(`/api/v1/${path}`, { method: "POST", token, ...(json === undefined ? {} : { json }) });
  for (const [id, name] of [["fw-1", "one.xz"], ["fw-2", "two.xz"]]) {
    await app.stores.firmwares.insert({ _id: id, name, size: 10, sha256: "0".repeat(64), createdAt: "2026-01-01" });
  }
  const ids = Array.from({ length: 30 }, (_, i) => `d-${String(i).padStart(2, "0")}`);
  for (const id of ids) assert.equal((await device(id, "checkin", { versionInfo: INFO })).status, 200);
  const [managed]: DeviceType[] = await get("device_types");

  await t.step("the set-default confirm's numbers: every device but the pinned one", async () => {
    const pin = await app.request("/api/v1/devices/d-29", {
      method: "PATCH",
      token,
      json: { deviceId: "d-29", firmware: "fw-2" },
    });
    assert.equal(pin.status, 200);
    assert.deepEqual(await get(`device_types/${managed._id}/reach`), { total: 30, devices: 29, custom: 1, rollout: 0 });
    assert.deepEqual(await refusal(await app.request("/api/v1/device_types/nope/reach", { token })), {
      status: 404,
      error: "not_found",
      msg: "No device type with id nope.",
    });
  });

  await t.step("the default installed everywhere, then rolled out: counted installed, it finishes", async () => {
    const patched = await app.request(`/api/v1/device_types/${managed._id}`, {
      method: "PATCH",
      token,
      json: { _id: managed._id, defaultFirmware: "fw-1" },
    });
    assert.equal(patched.status, 200);
    for (const id of ids.slice(0, 29)) {
      assert.equal((await device(id, "status", { firmwareId: "fw-1", state: "installed" })).status, 204);
    }
    assert.deepEqual(await get("devices/d-03/firmware"), {
      deviceId: "d-03",
      firmwareId: "fw-1",
      firmwareName: "one.xz",
      source: "default",
      rolloutId: null,
      rolloutName: null,
    });
    const created = await post("rollouts", { name: "one again", firmwareId: "fw-1", productTypeId: null });
    assert.equal(created.status, 201);
    const draft: Rollout = await created.json();
    assert.equal(draft.counts.pending, 0);
    const started: Rollout = await (await post(`rollouts/${draft._id}/start`)).json();
    assert.equal(started.state, "finished");
    assert.deepEqual(
      [started.counts.inStage, started.counts.installed, started.counts.pending, started.counts.failed],
      [29, 29, 0, 0],
    );
    const stages = await get(`rollouts/${draft._id}/stages`);
    assert.deepEqual(stages.map((s: { reached: boolean; pending: number }) => [s.reached, s.pending]), [
      [true, 0],
      [true, 0],
      [true, 0],
      [true, 0],
    ]);
    assert.equal(stages.at(-1).devices, 29);
    assert.equal(stages.at(-1).installed, 29);
    assert.deepEqual(await get("devices/d-03/firmware"), {
      deviceId: "d-03",
      firmwareId: "fw-1",
      firmwareName: "one.xz",
      source: "rollout",
      rolloutId: draft._id,
      rolloutName: "one again",
    });
    assert.equal((await get("devices/d-29/firmware")).source, "custom");
    assert.deepEqual(await get(`device_types/${managed._id}/reach`), { total: 30, devices: 0, custom: 1, rollout: 29 });
    assert.deepEqual(await refusal(await post(`rollouts/${draft._id}/retry`)), {
      status: 409,
      error: "conflict",
      msg: "Rollout one again has no failed devices: there is nothing to retry.",
    });
  });

  await t.step("retry: refused for a draft; a failed device is pending again; viewers may not", async () => {
    const r: Rollout = await (await post("rollouts", {
      name: "two",
      firmwareId: "fw-2",
      productTypeId: null,
      stages: [100],
      autoAdvance: false,
      failureThreshold: 50,
    })).json();
    assert.deepEqual(await refusal(await post(`rollouts/${r._id}/retry`)), {
      status: 409,
      error: "conflict",
      msg: "Rollout two is draft: it cannot be retried (only a running, paused or finished rollout can).",
    });
    await post(`rollouts/${r._id}/start`);
    assert.equal((await device("d-00", "status", { firmwareId: "fw-2", state: "failed", message: "no" })).status, 204);
    assert.equal((await device("d-01", "status", { firmwareId: "fw-2", state: "installed" })).status, 204);
    const before: Rollout = await get(`rollouts/${r._id}`);
    assert.deepEqual([before.counts.failed, before.counts.installed, before.counts.pending], [1, 1, 27]);

    const viewer = await post("operators", { email: "v@example.com", role: "viewer", password: "viewer-pass-1" });
    assert.equal(viewer.status, 201);
    const signedIn = await app.request("/api/v1/login", {
      method: "POST",
      json: { email: "v@example.com", password: "viewer-pass-1" },
    });
    const viewerToken = (await signedIn.json()).token;
    const refused = await app.request(`/api/v1/rollouts/${r._id}/retry`, { method: "POST", token: viewerToken });
    assert.equal(refused.status, 403);
    assert.equal((await get(`rollouts/${r._id}`)).counts.failed, 1, "the viewer's retry changed nothing");

    const retried = await post(`rollouts/${r._id}/retry`);
    assert.equal(retried.status, 200);
    const after: Rollout = await retried.json();
    assert.deepEqual([after.counts.failed, after.counts.installed, after.counts.pending], [0, 1, 28]);
    const pending = await get(`rollouts/${r._id}/devices?state=pending&rowsPerPage=100`);
    assert.ok(pending.data.some((d: { deviceId: string }) => d.deviceId === "d-00"));
    assert.equal((await device("d-00", "status", { firmwareId: "fw-2", state: "installed" })).status, 204);
    assert.equal((await get(`rollouts/${r._id}`)).counts.installed, 2);
    const audit = await get(`audit?targetType=rollout&targetId=${r._id}`);
    const entry = audit.data.find((e: { action: string }) => e.action === "rollout.retry");
    assert.equal(entry.details.retried, 1);
    assert.ok(app.logged.some((l) => l.includes(`Rollout two (${r._id}): retry by admin@example.com`)));
  });

  await t.step("§16: the overview counts stale and pending devices; seen=stale lists them", async () => {
    const overview = await get("overview");
    assert.deepEqual(overview.devices, { total: 30, seen24h: 30, seen7d: 30, stale: 0, never: 0, pending: 0 });
    assert.deepEqual(await get("devices?seen=stale"), { data: [], total: 0, exact: true, page: 0, per_page: 25 });
    assert.equal((await refusal(await app.request("/api/v1/devices?seen=old", { token }))).status, 400);
  });

  await t.step("a device's firmware: 404 for an unknown device, 400 for a malformed id", async () => {
    assert.deepEqual(await refusal(await app.request("/api/v1/devices/ghost/firmware", { token })), {
      status: 404,
      error: "not_found",
      msg: "No device with deviceId ghost.",
    });
    assert.equal((await app.request("/api/v1/devices/%20bad/firmware", { token })).status, 400);
  });
});
