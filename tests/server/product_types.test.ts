import assert from "node:assert/strict";
import { type ApiClient, DeviceClient } from "../../shared/client.ts";
import type { ModuleInput, ProductType } from "../../shared/schemas/mod.ts";
import { fileSource } from "../../testing/files.ts";
import { makeNamedImportFile } from "../../testing/import_db.ts";
import { rejects } from "../helpers/assert.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

async function send(srv: TestServer, token: string, method: string, path: string, body: unknown) {
  const res = await srv.fetch(`/api/v1/product_types${path}`, {
    method,
    token,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** The module list as a PATCH sends it back (the form the web app uses). */
const asInput = (pt: ProductType): ModuleInput[] =>
  pt.modules.map(({ _id, name, isDefault, treatmentIds }) => ({ _id, name, isDefault, treatmentIds }));

const tick = () => new Promise((r) => setTimeout(r, 5));

Deno.test("product types: create, list, get, rename with case-insensitive unique names", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();

  await t.step("POST trims the name and answers 201 with the entity", async () => {
    const res = await send(srv, api.token, "POST", "", { name: "  Gamma  " });
    assert.equal(res.status, 201);
    const pt = res.json as ProductType;
    assert.deepEqual(pt, {
      _id: pt._id,
      name: "Gamma",
      theme: {},
      modules: [],
      createdAt: pt.createdAt,
      updatedAt: pt.createdAt,
      etag: pt.etag,
    });
    assert.ok(pt._id.length > 0);
    assert.ok(!Number.isNaN(Date.parse(pt.createdAt)));
    assert.deepEqual(await api.getProductType(pt._id), pt);
  });

  await t.step("GET lists by name, ignoring case", async () => {
    await api.createProductType("alpha");
    await api.createProductType("Beta");
    await api.createProductType("Ärzte");
    const names = (await api.listProductTypes()).map((p) => p.name);
    assert.deepEqual(names, ["alpha", "Beta", "Gamma", "Ärzte"]);
  });

  await t.step("a name taken in any case is 409 and creates nothing", async () => {
    const before = await api.listProductTypes();
    for (const name of ["gamma", "GAMMA", "  Alpha ", "ärzte", "ÄRZTE"]) {
      await rejects(api.createProductType(name), 409, /already exists/);
    }
    assert.deepEqual(await api.listProductTypes(), before);
  });

  await t.step("invalid create bodies are 400 naming the field and create nothing", async () => {
    const before = await api.listProductTypes();
    for (
      const [body, msg] of [
        [{ name: "" }, /name/],
        [{ name: "   " }, /name/],
        [{}, /name/],
        [{ name: 5 }, /name/],
        [{ name: null }, /name/],
        [{ name: "x".repeat(201) }, /name/],
        [{ name: "a\u0000b" }, /^name: must be well-formed Unicode text without NUL/],
        [{ name: "a\ud800b" }, /^name: must be well-formed Unicode text without NUL/],
        [{ name: "two\nlines" }, /name.*control/],
        [{ name: "Delta", theme: {} }, /theme/],
        [[], /body/],
        ["{name:", /body/],
      ] as const
    ) {
      const res = await send(srv, api.token, "POST", "", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.error, "invalid_request");
      assert.match(res.json.msg, msg);
    }
    assert.deepEqual(await api.listProductTypes(), before);
  });

  await t.step("GET and DELETE of an unknown id are 404", async () => {
    await rejects(api.getProductType("no-such-id"), 404, /no-such-id/);
    await rejects(api.deleteProductType("no-such-id"), 404);
    await rejects(api.getProductType("x".repeat(129)), 400, /id/);
  });

  await t.step("PATCH renames; the same name in another case is fine; another type's name is 409", async () => {
    const [alpha, beta] = await api.listProductTypes();
    await tick();
    const renamed = await api.patchProductType({ _id: alpha._id, name: " Alpha One ", modules: [] });
    assert.equal(renamed.name, "Alpha One");
    assert.ok(renamed.updatedAt > alpha.updatedAt);
    assert.equal(renamed.createdAt, alpha.createdAt);
    const recased = await api.patchProductType({ _id: alpha._id, name: "ALPHA ONE", modules: [] });
    assert.equal(recased.name, "ALPHA ONE");
    await rejects(api.patchProductType({ _id: alpha._id, name: "beta", modules: [] }), 409, /beta/);
    await rejects(api.patchProductType({ _id: beta._id, name: "alpha one", modules: [] }), 409);
    assert.deepEqual(await api.getProductType(alpha._id), recased);
    assert.deepEqual(await api.getProductType(beta._id), beta);
    // The old name is free again.
    await api.createProductType("alpha");
  });

  await t.step("the routes need an operator token", async () => {
    for (const [method, path] of [["GET", ""], ["POST", ""], ["GET", "/x"], ["PATCH", "/x"], ["DELETE", "/x"]]) {
      const res = await srv.fetch(`/api/v1/product_types${path}`, { method });
      assert.equal(res.status, 401);
    }
  });
});

Deno.test("product types: modules, refused patches, cascades onto devices", async (t) => {
  await using srv = await startServer();
  const api: ApiClient & { token: string } = await srv.login();
  const dir = await Deno.makeTempDir();
  try {
    await api.importTreatments(await fileSource(makeNamedImportFile(`${dir}/t.sqlite3`, ["T1", "T2", "T3"])));
    const tr = Object.fromEntries((await api.listTreatments()).map((x) => [x.name, x._id]));
    for (const id of ["dev-a", "dev-b", "dev-c"]) {
      await new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
        versionInfo: { app: null, os: null, channels: [] },
      });
    }
    const created = await api.createProductType("Main");
    const otherType = await api.createProductType("Other");
    let main: ProductType = created;

    await t.step("modules without _id get one; order, flags, treatments and theme are kept", async () => {
      await tick();
      main = await api.patchProductType({
        _id: created._id,
        name: "Main",
        theme: { primary: "#078686", nested: { a: [1, 2] } },
        modules: [
          { name: " Basic ", isDefault: true, treatmentIds: [tr.T2, tr.T1] },
          { name: "Extra", isDefault: false, treatmentIds: [] },
          { name: "Pro", isDefault: false, treatmentIds: [tr.T3] },
        ],
      });
      assert.deepEqual(main.modules.map((m) => [m.name, m.isDefault, m.treatmentIds]), [
        ["Basic", true, [tr.T2, tr.T1]],
        ["Extra", false, []],
        ["Pro", false, [tr.T3]],
      ]);
      assert.equal(new Set(main.modules.map((m) => m._id)).size, 3);
      assert.deepEqual(main.theme, { primary: "#078686", nested: { a: [1, 2] } });
      assert.ok(main.updatedAt > created.updatedAt);
      assert.deepEqual(await api.getProductType(main._id), main);
      assert.deepEqual((await api.listProductTypes()).find((p) => p._id === main._id), main);
      // A patch without theme keeps it.
      main = await api.patchProductType({ _id: main._id, name: "Main", modules: asInput(main) });
      assert.deepEqual(main.theme, { primary: "#078686", nested: { a: [1, 2] } });
    });

    const other = await api.patchProductType({
      _id: otherType._id,
      name: "Other",
      modules: [{ name: "O1", isDefault: false, treatmentIds: [] }],
    });

    await t.step("refused patches are 400/404 naming the field and change nothing", async () => {
      const mods = asInput(main);
      const before = await api.listProductTypes();
      const cases: [string, unknown, number, RegExp][] = [
        [main._id, { _id: other._id, name: "Main", modules: mods }, 400, /_id/],
        [main._id, { name: "Main", modules: mods }, 400, /_id/],
        [main._id, { _id: main._id, modules: mods }, 400, /name/],
        [main._id, { _id: main._id, name: "  ", modules: mods }, 400, /name/],
        [main._id, { _id: main._id, name: "Main" }, 400, /modules/],
        [main._id, { _id: main._id, name: "Main", modules: mods, extra: true }, 400, /extra/],
        [main._id, { _id: main._id, name: "Main", theme: "teal", modules: mods }, 400, /theme/],
        [main._id, { _id: main._id, name: "Main", theme: [1], modules: mods }, 400, /theme/],
        [main._id, { _id: main._id, name: "Main", modules: [{ ...mods[0], name: " " }] }, 400, /modules\.0\.name/],
        [main._id, { _id: main._id, name: "Main", modules: [{ ...mods[0], color: 1 }] }, 400, /color/],
        [main._id, { _id: main._id, name: "Ma\u0000in", modules: mods }, 400, /^name: must be well-formed Unicode/],
        [
          main._id,
          { _id: main._id, name: "Main", modules: [{ ...mods[0], name: "\udc00" }] },
          400,
          /^modules\.0\.name: must be well-formed/,
        ],
        [main._id, { _id: main._id, name: "Main", modules: [{ ...mods[0], name: "a\tb" }] }, 400, /modules\.0\.name/],
        [main._id, { _id: main._id, name: "Main", modules: [{ name: "M", treatmentIds: [] }] }, 400, /isDefault/],
        [
          main._id,
          { _id: main._id, name: "Main", modules: [mods[0], { ...mods[1], _id: other.modules[0]._id }] },
          400,
          new RegExp(`modules\\.1\\._id.*${other.modules[0]._id}`),
        ],
        [main._id, { _id: main._id, name: "Main", modules: [{ ...mods[0], _id: "made-up" }] }, 400, /modules\.0\._id/],
        [main._id, { _id: main._id, name: "Main", modules: [mods[0], mods[0]] }, 400, /modules\.1\._id/],
        [
          main._id,
          { _id: main._id, name: "Main", modules: [mods[0], { ...mods[1], treatmentIds: [tr.T1, "no-such-tr"] }] },
          400,
          /modules\.1\.treatmentIds.*no-such-tr/,
        ],
        [
          main._id,
          { _id: main._id, name: "Main", modules: [{ ...mods[0], treatmentIds: [tr.T1, tr.T1] }] },
          400,
          /modules\.0\.treatmentIds.*duplicates/,
        ],
        ["no-such-type", { _id: "no-such-type", name: "Main", modules: [] }, 404, /no-such-type/],
      ];
      for (const [id, body, status, msg] of cases) {
        const res = await send(srv, api.token, "PATCH", `/${id}`, body);
        assert.equal(res.status, status, JSON.stringify(body));
        assert.match(res.json.msg, msg, JSON.stringify(body));
      }
      const bad = await send(srv, api.token, "PATCH", `/${main._id}`, "{");
      assert.equal(bad.status, 400);
      assert.deepEqual(await api.listProductTypes(), before);
    });

    await t.step("removing a module removes it from devices and bumps their updatedAt", async () => {
      const [basic, extra, pro] = main.modules.map((m) => m._id);
      await api.patchDevice({ deviceId: "dev-a", productTypeId: main._id, moduleIds: [pro, extra] });
      const devB = await api.patchDevice({ deviceId: "dev-b", productTypeId: main._id, moduleIds: [basic] });
      const devC = await api.patchDevice({
        deviceId: "dev-c",
        productTypeId: other._id,
        moduleIds: [other.modules[0]._id],
      });
      await tick();
      const mods = asInput(main);
      const patched = await api.patchProductType({
        _id: main._id,
        name: "Main",
        // Reordered, Extra dropped, Basic renamed, a new module appended.
        modules: [{ ...mods[2], isDefault: true }, { ...mods[0], name: "Basic 2" }, {
          name: "New",
          isDefault: false,
          treatmentIds: [tr.T1],
        }],
      });
      assert.deepEqual(patched.modules.map((m) => [m._id, m.name, m.isDefault]).slice(0, 2), [
        [pro, "Pro", true],
        [basic, "Basic 2", true],
      ]);
      assert.equal(patched.modules[2].name, "New");
      assert.ok(![basic, extra, pro].includes(patched.modules[2]._id));
      const a = await api.getDevice("dev-a");
      assert.deepEqual(a.moduleIds, [pro]);
      assert.ok(a.updatedAt > devB.updatedAt);
      assert.deepEqual(await api.getDevice("dev-b"), devB, "a device with kept modules is untouched");
      assert.deepEqual(await api.getDevice("dev-c"), devC);
      // The removed module's id can no longer be used.
      await rejects(api.patchDevice({ deviceId: "dev-a", moduleIds: [extra] }), 400, /moduleIds/);
      main = patched;
    });

    await t.step("DELETE: 204; its devices get no type and no modules; others untouched", async () => {
      const devC = await api.getDevice("dev-c");
      const devA = await api.getDevice("dev-a");
      await tick();
      const res = await srv.fetch(`/api/v1/product_types/${main._id}`, { method: "DELETE", token: api.token });
      assert.equal(res.status, 204);
      assert.equal(await res.text(), "");
      await rejects(api.getProductType(main._id), 404);
      await rejects(api.deleteProductType(main._id), 404);
      for (const id of ["dev-a", "dev-b"]) {
        const d = await api.getDevice(id);
        assert.equal(d.productTypeId, null, id);
        assert.deepEqual(d.moduleIds, [], id);
        assert.ok(d.updatedAt > devA.updatedAt, id);
      }
      assert.deepEqual(await api.getDevice("dev-c"), devC);
      assert.deepEqual((await api.listProductTypes()).map((p) => p.name), ["Other"]);
      // Treatments stay.
      assert.equal((await api.listTreatments()).length, 3);
      // Its name is free again.
      await api.createProductType("main");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
