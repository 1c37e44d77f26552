import assert from "node:assert/strict";
import type { DeviceType } from "../../shared/schemas/device_type.ts";
import { refusal, testApp } from "./app.ts";

Deno.test("device types routes on the stores: default firmware set, cleared and refused", async (t) => {
  await using app = await testApp();
  const token = await app.login();
  const [managed]: DeviceType[] = await (await app.request("/api/v1/device_types", { token })).json();
  assert.deepEqual(managed, { ...managed, name: "jeecee_baby_routes", defaultFirmware: null });
  const firmware = {
    _id: "fw-1",
    name: "one.xz",
    size: 10,
    sha256: "0".repeat(64),
    createdAt: new Date().toISOString(),
  };
  await app.stores.firmwares.insert(firmware);
  const patch = (id: string, json: unknown) =>
    app.request(`/api/v1/device_types/${id}`, { method: "PATCH", token, json });

  await t.step("set and clear", async () => {
    const set = await (await patch(managed._id, { _id: managed._id, defaultFirmware: "fw-1" })).json();
    assert.deepEqual(set, { ...managed, defaultFirmware: "fw-1", etag: set.etag });
    assert.notEqual(set.etag, managed.etag, "a change moves the etag");
    assert.ok(app.logged.includes("Device type jeecee_baby_routes: default firmware fw-1."));
    const cleared = await (await patch(managed._id, { _id: managed._id, defaultFirmware: null })).json();
    assert.deepEqual(cleared, { ...managed, etag: cleared.etag });
    assert.ok(![managed.etag, set.etag].includes(cleared.etag), "an etag never comes back");
  });

  await t.step("refusals: body _id, unknown type, unknown firmware", async () => {
    assert.deepEqual(await refusal(await patch(managed._id, { _id: "x", defaultFirmware: null })), {
      status: 400,
      error: "invalid_request",
      msg: `_id: must equal the device type id in the path (${managed._id}).`,
    });
    assert.deepEqual(await refusal(await patch("nope", { _id: "nope", defaultFirmware: null })), {
      status: 404,
      error: "not_found",
      msg: "No device type with id nope.",
    });
    assert.deepEqual(await refusal(await patch(managed._id, { _id: managed._id, defaultFirmware: "fw-x" })), {
      status: 400,
      error: "invalid_request",
      msg: "defaultFirmware: no firmware with id fw-x.",
    });
  });

  await t.step("the firmware in use cannot be deleted: 409 with the reasons", async () => {
    await patch(managed._id, { _id: managed._id, defaultFirmware: "fw-1" });
    assert.deepEqual(await refusal(await app.request("/api/v1/device_firmwares/fw-1", { method: "DELETE", token })), {
      status: 409,
      error: "conflict",
      msg: "Firmware one.xz cannot be deleted: it is the default firmware of device type jeecee_baby_routes.",
    });
  });
});
