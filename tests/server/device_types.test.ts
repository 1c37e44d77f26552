import assert from "node:assert/strict";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { rejects } from "../helpers/assert.ts";
import { startServer, type TestServer } from "../../testing/server.ts";

async function rawPatch(srv: TestServer, token: string, id: string, body: string, type = "application/json") {
  const res = await srv.fetch(`/api/v1/device_types/${encodeURIComponent(id)}`, {
    method: "PATCH",
    token,
    headers: { "content-type": type },
    body,
  });
  return { status: res.status, json: await res.json() };
}

Deno.test("device types: the managed type, default firmware set and unset, refusals", async (t) => {
  await using srv = await startServer({ env: { PRODUCT: "acme-2" } });
  const api = await srv.login();
  const bytes = xzBytes("firmware 1 2 3");
  const fw = await api.uploadFirmware({
    name: "fw.xz",
    size: bytes.length,
    stream: () => ReadableStream.from([bytes]),
  });

  await t.step("the list holds jeecee_baby_<PRODUCT> with no default", async () => {
    const types = await api.listDeviceTypes();
    assert.equal(types.length, 1);
    assert.equal(types[0].name, "jeecee_baby_acme-2");
    assert.equal(types[0].defaultFirmware, null);
    assert.ok(types[0]._id.length > 0);
  });

  const [type] = await api.listDeviceTypes();

  await t.step("PATCH sets and unsets the default and answers the DeviceType", async () => {
    const set = await api.patchDeviceType({ _id: type._id, defaultFirmware: fw._id });
    assert.deepEqual(set, { ...type, defaultFirmware: fw._id, etag: set.etag });
    assert.deepEqual(await api.listDeviceTypes(), [set]);
    const unset = await api.patchDeviceType({ _id: type._id, defaultFirmware: null });
    assert.deepEqual(unset, { ...type, etag: unset.etag });
    assert.deepEqual(await api.listDeviceTypes(), [unset]);
  });

  /** The device type with fw as its default, as the next step saves it (refusals must leave it exactly so). */
  let withDefault = type;
  await t.step("400 when the body _id differs from the path, or the firmware does not exist", async () => {
    withDefault = await api.patchDeviceType({ _id: type._id, defaultFirmware: fw._id });
    const mismatch = await rawPatch(srv, api.token, type._id, JSON.stringify({ _id: "other", defaultFirmware: null }));
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.json.msg, /_id/);
    await rejects(
      api.patchDeviceType({ _id: type._id, defaultFirmware: "no-such-fw" }),
      400,
      /defaultFirmware.*no-such-fw/,
    );
    assert.deepEqual(await api.listDeviceTypes(), [withDefault]);
  });

  await t.step("400 for malformed bodies, unknown members and missing fields; 415 for non-JSON", async () => {
    const bodies: [string, RegExp][] = [
      [JSON.stringify({ _id: type._id, defaultFirmware: fw._id, extra: 1 }), /extra/],
      [JSON.stringify({ _id: type._id }), /defaultFirmware/],
      [JSON.stringify({ defaultFirmware: null }), /_id/],
      [JSON.stringify({ _id: type._id, defaultFirmware: 5 }), /defaultFirmware/],
      [JSON.stringify({ _id: type._id, defaultFirmware: "" }), /defaultFirmware/],
      [JSON.stringify([type._id]), /body/],
      ["{not json", /JSON/],
      ["", /JSON/],
    ];
    for (const [body, msg] of bodies) {
      const { status, json } = await rawPatch(srv, api.token, type._id, body);
      assert.equal(status, 400, body);
      assert.equal(json.error, "invalid_request");
      assert.match(json.msg, msg, body);
    }
    const text = await rawPatch(
      srv,
      api.token,
      type._id,
      JSON.stringify({ _id: type._id, defaultFirmware: null }),
      "text/plain",
    );
    assert.equal(text.status, 415);
    assert.deepEqual(await api.listDeviceTypes(), [withDefault]);
  });

  await t.step("404 for an unknown device type", async () => {
    await rejects(api.patchDeviceType({ _id: "no-such-type", defaultFirmware: null }), 404, /no-such-type/);
    await rejects(api.patchDeviceType({ _id: "no-such-type", defaultFirmware: "no-such-fw" }), 404);
  });

  await t.step("both routes need a token", async () => {
    const list = await srv.fetch("/api/v1/device_types");
    assert.equal(list.status, 401);
    await list.body?.cancel();
    const patch = await srv.fetch(`/api/v1/device_types/${type._id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ _id: type._id, defaultFirmware: null }),
    });
    assert.equal(patch.status, 401);
    await patch.body?.cancel();
    assert.deepEqual(await api.listDeviceTypes(), [withDefault]);
  });
});

Deno.test("device types: a restart keeps the type and its default, another PRODUCT adds its own", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-test-" });
  let first;
  {
    await using srv = await startServer({ dataDir, keepData: true });
    const api = await srv.login();
    const bytes = xzBytes("firmware 9");
    const fw = await api.uploadFirmware({
      name: "keep.xz",
      size: bytes.length,
      stream: () => ReadableStream.from([bytes]),
    });
    const [type] = await api.listDeviceTypes();
    first = await api.patchDeviceType({ _id: type._id, defaultFirmware: fw._id });
  }
  {
    await using srv = await startServer({ dataDir, env: { PRODUCT: "other" } });
    const types = await (await srv.login()).listDeviceTypes();
    assert.deepEqual(types.map((t) => t.name), ["jeecee_baby_default", "jeecee_baby_other"]);
    assert.deepEqual(types[0], first);
    assert.equal(types[1].defaultFirmware, null);
  }
});
