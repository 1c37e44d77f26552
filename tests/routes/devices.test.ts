import assert from "node:assert/strict";
import type { Device } from "../../shared/schemas/device.ts";
import { DEVICE_KEY, refusal, testApp } from "./app.ts";
import { tick } from "../../testing/clock.ts";

const INFO = { app: "1.0", os: "os", channels: ["c1"] };

Deno.test("devices routes on the stores: list, get, patch, delete and their refusals", async (t) => {
  await using app = await testApp();
  const token = await app.login();
  const checkin = (id: string) =>
    app.request(`/api/v1/device/${id}/checkin`, {
      method: "POST",
      headers: { Authorization: `Bearer ${DEVICE_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ versionInfo: INFO }),
    });
  for (const id of ["dev-b", "dev-a", "other"]) assert.equal((await checkin(id)).status, 200);
  const pt = await (await app.request("/api/v1/product_types", { method: "POST", token, json: { name: "P" } })).json();
  const withModules = await (await app.request(`/api/v1/product_types/${pt._id}`, {
    method: "PATCH",
    token,
    json: { _id: pt._id, name: "P", modules: [{ name: "m", isDefault: false, treatmentIds: [] }] },
  })).json();
  const moduleId = withModules.modules[0]._id;

  await t.step("list: paged, searched, with page and per_page", async () => {
    const res = await app.request("/api/v1/devices?page=0&rowsPerPage=2", { token });
    assert.equal(res.headers.get("content-type"), "application/json");
    const body = await res.json();
    assert.deepEqual(body.data.map((d: Device) => d.deviceId), ["dev-a", "dev-b"]);
    assert.deepEqual([body.total, body.page, body.per_page], [3, 0, 2]);
    const found = await (await app.request("/api/v1/devices?q=%20DEV-B%20", { token })).json();
    assert.deepEqual(found.data.map((d: Device) => d.deviceId), ["dev-b"]);
  });

  await t.step("get and patch answer the device; the list shows the change at once", async () => {
    const before = await (await app.request("/api/v1/devices?page=0&rowsPerPage=2", { token })).text();
    const res = await app.request("/api/v1/devices/dev-a", {
      method: "PATCH",
      token,
      json: { deviceId: "dev-a", productTypeId: pt._id, moduleIds: [moduleId] },
    });
    assert.equal(res.status, 200);
    const saved: Device = await res.json();
    assert.deepEqual([saved.productTypeId, saved.moduleIds], [pt._id, [moduleId]]);
    assert.deepEqual(await (await app.request("/api/v1/devices/dev-a", { token })).json(), saved);
    const after = await (await app.request("/api/v1/devices?page=0&rowsPerPage=2", { token })).json();
    assert.notEqual(JSON.stringify(after), before);
    assert.deepEqual(after.data[0], saved);
  });

  await t.step("refusals: path, body id, unknown device, unknown ids", async () => {
    const patch = (id: string, json: unknown) => app.request(`/api/v1/devices/${id}`, { method: "PATCH", token, json });
    assert.equal((await refusal(await patch("bad id!", { deviceId: "x" }))).status, 400);
    assert.deepEqual(await refusal(await patch("dev-a", { deviceId: "dev-b" })), {
      status: 400,
      error: "invalid_request",
      msg: "deviceId: the body's deviceId dev-b differs from the path's dev-a.",
    });
    assert.deepEqual(await refusal(await patch("ghost", { deviceId: "ghost" })), {
      status: 404,
      error: "not_found",
      msg: "No device with deviceId ghost.",
    });
    assert.deepEqual(await refusal(await patch("dev-b", { deviceId: "dev-b", moduleIds: [moduleId] })), {
      status: 400,
      error: "invalid_request",
      msg: `moduleIds: the device has no product type, so it cannot enable module ${moduleId}.`,
    });
    assert.deepEqual(await refusal(await app.request("/api/v1/devices/ghost", { token })), {
      status: 404,
      error: "not_found",
      msg: "No device with deviceId ghost.",
    });
  });

  await t.step("delete: 204, then 404", async () => {
    assert.equal((await app.request("/api/v1/devices/other", { method: "DELETE", token })).status, 204);
    assert.equal((await app.request("/api/v1/devices/other", { method: "DELETE", token })).status, 404);
  });
});

Deno.test("GET devices sees a write made through another stores instance on the same database", async () => {
  await using app = await testApp();
  const token = await app.login();
  const list = async () =>
    (await (await app.request("/api/v1/devices", { token })).json()) as { total: number; data: Device[] };
  assert.deepEqual((await list()).data, []);
  assert.deepEqual((await list()).data, []); // answered from the cache now

  const other = await app.another();
  await other.deviceApi.checkin("from-another-process", INFO, "routes");
  const after = await list();
  assert.deepEqual(after.data.map((d) => d.deviceId), ["from-another-process"]);

  await tick(); // a later updatedAt: the patch may fall in the millisecond of the check-in
  await other.devices.patch("from-another-process", { additionalTreatmentIds: [] });
  const patched = await list();
  assert.notEqual(patched.data[0].updatedAt, after.data[0].updatedAt);
  await other.devices.remove("from-another-process");
  assert.equal((await list()).total, 0);
});
