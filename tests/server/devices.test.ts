import assert from "node:assert/strict";
import { ApiClient, DeviceClient } from "../../shared/client.ts";
import type { Device, DevicePatch } from "../../shared/schemas/mod.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { makeNamedImportFile } from "../../testing/import_db.ts";
import { rejects } from "../helpers/assert.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

const VERSION = { app: "1.2.3", os: "14", channels: ["a", "b"] };

/** Devices exist only through the device API check-in. */
async function checkin(srv: TestServer, ids: string[]) {
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map((id) =>
        new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({ versionInfo: VERSION })
      ),
    );
  }
}

async function rawPatch(srv: TestServer, token: string, path: string, body: string, type = "application/json") {
  const res = await srv.fetch(`/api/v1/devices/${path}`, {
    method: "PATCH",
    token,
    headers: { "content-type": type },
    body,
  });
  const json = await res.json();
  return { status: res.status, json };
}

Deno.test("GET devices: paging, sizes, ordering and q search", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const numbered = Array.from({ length: 105 }, (_, i) => `dev-${String(104 - i).padStart(3, "0")}`);
  const special = ["Box-Alpha", "box_beta", "boxXbeta", "ZZ.last", "a:b"];
  await checkin(srv, [...numbered, ...special]);
  const all = [...numbered, ...special].sort();
  const total = all.length;

  await t.step("no parameters: page 0 of 25, ordered by deviceId, with the device fields", async () => {
    const list = await api.listDevices();
    assert.equal(list.total, total);
    assert.equal(list.page, 0);
    assert.equal(list.per_page, 25);
    assert.deepEqual(list.data.map((d) => d.deviceId), all.slice(0, 25));
    const d = list.data[0];
    assert.deepEqual(d, {
      deviceId: d.deviceId,
      productTypeId: null,
      moduleIds: [],
      additionalTreatmentIds: [],
      firmware: null,
      createdAt: d.createdAt,
      updatedAt: d.updatedAt,
      lastLoggedIn: d.lastLoggedIn,
      versionInfo: VERSION,
      update: null,
      etag: d.etag,
      admission: "accepted",
      credentialsIssuedAt: null,
      attributes: null,
    });
    assert.ok(d.lastLoggedIn && !Number.isNaN(Date.parse(d.lastLoggedIn)));
  });

  await t.step("each page size walks every device once; last page is partial; beyond the end is empty", async () => {
    for (const size of [1, 10, 25, 50, 100]) {
      const seen: string[] = [];
      const pages = Math.ceil(total / size);
      for (let page = 0; page < pages; page++) {
        const list = await api.listDevices({ page, rowsPerPage: size });
        assert.equal(list.page, page);
        assert.equal(list.per_page, size);
        assert.equal(list.total, total);
        assert.equal(list.data.length, page === pages - 1 ? total - size * (pages - 1) : size);
        seen.push(...list.data.map((d) => d.deviceId));
      }
      assert.deepEqual(seen, all, `size ${size}`);
      const beyond = await api.listDevices({ page: pages, rowsPerPage: size });
      assert.deepEqual(beyond, { data: [], total, exact: true, page: pages, per_page: size });
    }
    const far = await api.listDevices({ page: 999_999_999, rowsPerPage: 100 });
    assert.deepEqual(far, { data: [], total, exact: true, page: 999_999_999, per_page: 100 });
  });

  await t.step("invalid page or rowsPerPage is 400 naming the parameter", async () => {
    const token = api.token;
    for (
      const [qs, field] of [
        ["page=-1", "page"],
        ["page=abc", "page"],
        ["page=1.5", "page"],
        ["page=", "page"],
        ["page=1e3", "page"],
        ["page=1000000001", "page"],
        ["rowsPerPage=0", "rowsPerPage"],
        ["rowsPerPage=101", "rowsPerPage"],
        ["rowsPerPage=ten", "rowsPerPage"],
        ["rowsPerPage=-5", "rowsPerPage"],
        [`q=${"x".repeat(129)}`, "q"],
      ]
    ) {
      const res = await srv.fetch(`/api/v1/devices?${qs}`, { token });
      assert.equal(res.status, 400, qs);
      const body = await res.json();
      assert.equal(body.error, "invalid_request");
      assert.match(body.msg, new RegExp(field), qs);
    }
  });

  await t.step("q is a case-insensitive substring; % and _ are literal", async () => {
    const ids = async (q: string, rowsPerPage = 100) => {
      const list = await api.listDevices({ q, rowsPerPage });
      return { ids: list.data.map((d) => d.deviceId), total: list.total };
    };
    assert.deepEqual(await ids("BOX"), { ids: ["Box-Alpha", "boxXbeta", "box_beta"], total: 3 });
    assert.deepEqual(await ids("alpha"), { ids: ["Box-Alpha"], total: 1 });
    assert.deepEqual(await ids("x_b"), { ids: ["box_beta"], total: 1 });
    assert.deepEqual(await ids("_"), { ids: ["box_beta"], total: 1 });
    assert.deepEqual(await ids("%"), { ids: [], total: 0 });
    assert.deepEqual(await ids("b%a"), { ids: [], total: 0 });
    assert.deepEqual(await ids("\\"), { ids: [], total: 0 });
    assert.deepEqual(await ids("  a:B "), { ids: ["a:b"], total: 1 });
    assert.deepEqual(await ids("nothing-like-this"), { ids: [], total: 0 });
    const dev1 = await api.listDevices({ q: "DEV-1", page: 0, rowsPerPage: 3 });
    assert.equal(dev1.total, 5);
    assert.deepEqual(dev1.data.map((d) => d.deviceId), ["dev-100", "dev-101", "dev-102"]);
    const dev1last = await api.listDevices({ q: "dev-1", page: 1, rowsPerPage: 3 });
    assert.deepEqual(dev1last.data.map((d) => d.deviceId), ["dev-103", "dev-104"]);
    // An empty q is no filter.
    const res = await srv.fetch("/api/v1/devices?q=", { token: api.token });
    assert.equal((await res.json()).total, total);
  });

  await t.step("GET devices/{id}: the device, 404 when unknown, 400 for a malformed id", async () => {
    const d = await api.getDevice("a:b");
    assert.equal(d.deviceId, "a:b");
    assert.deepEqual(d.versionInfo, VERSION);
    await rejects(api.getDevice("dev-999"), 404, /dev-999/);
    await rejects(api.getDevice("box-alpha"), 404);
    await rejects(api.getDevice("-starts-with-dash"), 400, /deviceId/);
    await rejects(api.getDevice("has space"), 400, /deviceId/);
    await rejects(api.getDevice("x".repeat(129)), 400, /deviceId/);
  });

  await t.step("DELETE devices/{id}: 204, then gone; 404 when unknown; 400 when malformed", async () => {
    await api.deleteDevice("ZZ.last");
    await rejects(api.getDevice("ZZ.last"), 404);
    await rejects(api.deleteDevice("ZZ.last"), 404);
    await rejects(api.deleteDevice("bad id"), 400, /deviceId/);
    assert.equal((await api.listDevices()).total, total - 1);
    const res = await srv.fetch("/api/v1/devices/dev-000", { method: "DELETE", token: api.token });
    assert.equal(res.status, 204);
    assert.equal(await res.text(), "");
  });

  await t.step("the routes need an operator token", async () => {
    for (const [method, path] of [["GET", ""], ["GET", "/dev-001"], ["PATCH", "/dev-001"], ["DELETE", "/dev-001"]]) {
      const res = await srv.fetch(`/api/v1/devices${path}`, { method });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error, "unauthorized");
    }
    const dev = await new ApiClient({ baseUrl: srv.url, token: () => DEVICE_API_KEY }).listDevices().catch((e) => e);
    assert.equal(dev.status, 401);
    await api.getDevice("dev-001");
  });
});

Deno.test("PATCH devices/{id}: every rule, and refused patches change nothing", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  await checkin(srv, ["dev-1", "dev-2"]);
  const dir = await Deno.makeTempDir();
  try {
    await api.importTreatments(
      await fileSource(makeNamedImportFile(`${dir}/t.sqlite3`, ["T-one", "T-two", "T-three"])),
    );
    const treatments = Object.fromEntries((await api.listTreatments()).map((tr) => [tr.name, tr._id]));
    const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-1.xz")));

    const a = await api.createProductType("Type A");
    const b = await api.createProductType("Type B");
    const moduleInput = (name: string, isDefault = false) => ({ name, isDefault, treatmentIds: [] });
    const typeA = await api.patchProductType({
      _id: a._id,
      name: a.name,
      modules: [moduleInput("A1", true), moduleInput("A2"), moduleInput("A3")],
    });
    const typeB = await api.patchProductType({ _id: b._id, name: b.name, modules: [moduleInput("B1")] });
    const [a1, a2, a3] = typeA.modules.map((m) => m._id);
    const [b1] = typeB.modules.map((m) => m._id);

    let current: Device = await api.getDevice("dev-1");
    /** A refused patch: the status, a msg naming the field, and the device exactly as before. */
    const refused = async (patch: unknown, status: number, msg: RegExp, path = "dev-1") => {
      const { status: got, json } = await rawPatch(srv, api.token, path, JSON.stringify(patch));
      assert.equal(got, status, JSON.stringify(json));
      assert.equal(json.error, status === 404 ? "not_found" : "invalid_request");
      assert.match(json.msg, msg);
      assert.deepEqual(await api.getDevice("dev-1"), current);
    };

    await t.step("a full patch sets every field in list order and bumps updatedAt only", async () => {
      await new Promise((r) => setTimeout(r, 5));
      const patched = await api.patchDevice({
        deviceId: "dev-1",
        productTypeId: a._id,
        moduleIds: [a3, a1],
        firmware: fw._id,
        additionalTreatmentIds: [treatments["T-three"], treatments["T-one"]],
      });
      assert.deepEqual(patched, {
        ...current,
        productTypeId: a._id,
        moduleIds: [a3, a1],
        firmware: fw._id,
        additionalTreatmentIds: [treatments["T-three"], treatments["T-one"]],
        updatedAt: patched.updatedAt,
        etag: patched.etag,
      });
      assert.ok(patched.updatedAt > current.updatedAt);
      assert.notEqual(patched.etag, current.etag);
      assert.deepEqual(await api.getDevice("dev-1"), patched);
      assert.deepEqual((await api.listDevices({ q: "dev-1" })).data[0], patched);
      current = patched;
    });

    await t.step("a partial patch touches only the fields it names", async () => {
      const patched = await api.patchDevice({ deviceId: "dev-1", additionalTreatmentIds: [treatments["T-two"]] });
      assert.deepEqual(patched, {
        ...current,
        additionalTreatmentIds: [treatments["T-two"]],
        updatedAt: patched.updatedAt,
        etag: patched.etag,
      });
      const same = await api.patchDevice({ deviceId: "dev-1", productTypeId: a._id });
      assert.deepEqual(same.moduleIds, [a3, a1], "the same product type keeps the modules");
      current = same;
    });

    await t.step("body and path problems are 400, an unknown device 404", async () => {
      await refused({ deviceId: "dev-2", firmware: null }, 400, /deviceId/);
      await refused({ firmware: null }, 400, /deviceId/);
      await refused({ deviceId: "dev-1", extra: 1 }, 400, /extra/);
      await refused({ deviceId: "dev-1", productTypeId: 5 }, 400, /productTypeId/);
      await refused({ deviceId: "dev-1", productTypeId: "" }, 400, /productTypeId/);
      await refused({ deviceId: "dev-1", moduleIds: "a" }, 400, /moduleIds/);
      await refused({ deviceId: "dev-1", moduleIds: [a1, a1] }, 400, /moduleIds.*duplicates/);
      await refused({ deviceId: "dev-1", additionalTreatmentIds: [1] }, 400, /additionalTreatmentIds/);
      const t1 = treatments["T-one"];
      await refused({ deviceId: "dev-1", additionalTreatmentIds: [t1, t1] }, 400, /additionalTreatmentIds.*duplicates/);
      await refused({ deviceId: "dev-1", firmware: 3 }, 400, /firmware/);
      await refused([], 400, /body/);
      await refused(null, 400, /body/);
      await refused({ deviceId: "nope-9", firmware: null }, 404, /nope-9/, "nope-9");
      await refused({ deviceId: "bad id", firmware: null }, 400, /deviceId/, "bad%20id");
      const notJson = await rawPatch(srv, api.token, "dev-1", "{deviceId:");
      assert.equal(notJson.status, 400);
      const wrongType = await rawPatch(srv, api.token, "dev-1", JSON.stringify({ deviceId: "dev-1" }), "text/plain");
      assert.equal(wrongType.status, 415);
      assert.deepEqual(await api.getDevice("dev-1"), current);
    });

    await t.step("every referenced id must exist: 400 naming the field", async () => {
      await refused({ deviceId: "dev-1", productTypeId: "no-such-type" }, 400, /productTypeId.*no-such-type/);
      await refused({ deviceId: "dev-1", firmware: "no-such-fw" }, 400, /firmware.*no-such-fw/);
      await refused({ deviceId: "dev-1", moduleIds: [a1, "no-such-module"] }, 400, /moduleIds.*no-such-module/);
      await refused(
        { deviceId: "dev-1", additionalTreatmentIds: [treatments["T-one"], "no-such-tr"] },
        400,
        /additionalTreatmentIds.*no-such-tr/,
      );
      // A valid change together with an invalid one: nothing is written.
      await refused({ deviceId: "dev-1", firmware: null, productTypeId: "no-such-type" }, 400, /productTypeId/);
    });

    await t.step("moduleIds must belong to the device's product type after the patch", async () => {
      await refused({ deviceId: "dev-1", moduleIds: [a1, b1] }, 400, new RegExp(`moduleIds.*${b1}`));
      await refused({ deviceId: "dev-1", productTypeId: b._id, moduleIds: [a1] }, 400, new RegExp(`moduleIds.*${a1}`));
      await refused({ deviceId: "dev-1", productTypeId: null, moduleIds: [a1] }, 400, /moduleIds.*no product type/);
      const other = await api.getDevice("dev-2");
      await rejects(api.patchDevice({ deviceId: "dev-2", moduleIds: [a1] }), 400, /moduleIds.*no product type/);
      assert.deepEqual(await api.getDevice("dev-2"), other);
      const moved = await api.patchDevice({ deviceId: "dev-1", productTypeId: b._id, moduleIds: [b1] });
      assert.equal(moved.productTypeId, b._id);
      assert.deepEqual(moved.moduleIds, [b1]);
      current = moved;
    });

    await t.step("a product type change without moduleIds clears the modules", async () => {
      const changed = await api.patchDevice({ deviceId: "dev-1", productTypeId: a._id });
      assert.equal(changed.productTypeId, a._id);
      assert.deepEqual(changed.moduleIds, []);
      const withModules = await api.patchDevice({ deviceId: "dev-1", moduleIds: [a2] });
      assert.deepEqual(withModules.moduleIds, [a2]);
      const none = await api.patchDevice({ deviceId: "dev-1", productTypeId: null });
      assert.equal(none.productTypeId, null);
      assert.deepEqual(none.moduleIds, []);
      const back = await api.patchDevice({ deviceId: "dev-1", productTypeId: a._id, moduleIds: [] });
      assert.deepEqual(back.moduleIds, []);
      current = back;
    });

    await t.step("firmware null means the default; lists can be emptied", async () => {
      const patch: DevicePatch = { deviceId: "dev-1", firmware: null, additionalTreatmentIds: [] };
      const cleared = await api.patchDevice(patch);
      assert.equal(cleared.firmware, null);
      assert.deepEqual(cleared.additionalTreatmentIds, []);
      // The firmware is no longer in use by the device and can go.
      await api.deleteFirmware(fw._id);
      current = cleared;
    });

    await t.step("dev-2 was never touched by dev-1's patches", async () => {
      const other = await api.getDevice("dev-2");
      assert.equal(other.productTypeId, null);
      assert.equal(other.createdAt, other.updatedAt);
    });

    await t.step("deleting a patched device removes its links, not the things they point at", async () => {
      await api.patchDevice({ deviceId: "dev-1", moduleIds: [a1, a2], additionalTreatmentIds: [treatments["T-one"]] });
      await api.deleteDevice("dev-1");
      await rejects(api.getDevice("dev-1"), 404);
      assert.deepEqual((await api.getProductType(a._id)).modules.map((m) => m._id), [a1, a2, a3]);
      assert.equal((await api.listTreatments()).length, 3);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
