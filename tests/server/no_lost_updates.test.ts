/**
 * No lost updates, over HTTP against the real server: GET answers an ETag (the list rows carry it as `etag`), every
 * change moves it, and PATCH/DELETE with an If-Match that is no longer current are 412 with nothing changed; among
 * concurrent writes made on one version exactly one wins.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import type { Device, ProductType, ProductTypePatch } from "../../shared/schemas/mod.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { generateTreatments, makeImportDb } from "../../testing/import_db.ts";
import { tick } from "../../testing/clock.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

interface Answer {
  status: number;
  etag: string | null;
  json: Record<string, unknown> & { error?: string; msg?: string };
}

function http(srv: TestServer, token: string) {
  return async (method: string, path: string, o: { ifMatch?: string; json?: unknown } = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (o.ifMatch !== undefined) headers["If-Match"] = o.ifMatch;
    if (o.json !== undefined) headers["Content-Type"] = "application/json";
    const res = await srv.fetch(`/api/v1/${path}`, {
      method,
      token,
      headers,
      body: o.json === undefined ? undefined : JSON.stringify(o.json),
    });
    const text = await res.text();
    return { status: res.status, etag: res.headers.get("etag"), json: text ? JSON.parse(text) : {} };
  };
}

const STALE = /was changed by someone else since you loaded it: reload it .*apply your change again\.$/;

/** The PATCH body of a product type as the console sends it: the whole module list. */
const ptBody = (
  pt: ProductType,
  changes: Partial<Pick<ProductType, "name" | "theme">> = {},
  extra: string[] = [],
): ProductTypePatch => ({
  _id: pt._id,
  name: changes.name ?? pt.name,
  theme: changes.theme ?? pt.theme,
  modules: [
    ...pt.modules.map(({ _id, name, isDefault, treatmentIds }) => ({ _id, name, isDefault, treatmentIds })),
    ...extra.map((name) => ({ name, isDefault: false, treatmentIds: [] })),
  ],
});

Deno.test("no lost updates: ETags and If-Match on devices, product types and device types", async (t) => {
  await using srv = await startServer({ env: { PRODUCT: "etag" } });
  const api = await srv.login();
  const req = http(srv, api.token);
  const dir = await Deno.makeTempDir({ prefix: "console-etag-" });
  try {
    const fwA = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-a.xz")));
    const fwB = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-b.xz")));
    makeImportDb(`${dir}/t.sqlite3`, generateTreatments(100, { phases: 1, channels: 1, namePrefix: "Tr" }));
    await api.importTreatments(await fileSource(`${dir}/t.sqlite3`));
    const tr = (await api.listTreatments()).map((x) => x._id);
    const checkin = (id: string, app = "1.0") =>
      new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
        versionInfo: { app, os: "os", channels: [] },
      });
    for (const id of ["dev-1", "dev-2", "race"]) await checkin(id);
    const created = await api.createProductType("Baby");
    let pt = await api.patchProductType(ptBody(created, {}, ["m1", "m2", "m3"]));
    const [m1, m2] = pt.modules.map((m) => m._id);
    const [deviceType] = await api.listDeviceTypes();

    /** GET of one entity: its ETag header equals its etag member and its list row's. */
    const getDevice = async (id: string) => {
      const one = await req("GET", `devices/${id}`);
      assert.equal(one.status, 200);
      assert.equal(one.etag, one.json.etag);
      const row = (await api.listDevices({ q: id })).data.find((d) => d.deviceId === id)!;
      assert.equal(row.etag, one.etag, "the list row carries the ETag");
      return one.json as unknown as Device;
    };
    const getProductType = async (id: string) => {
      const one = await req("GET", `product_types/${id}`);
      assert.equal(one.status, 200);
      assert.equal(one.etag, one.json.etag);
      assert.equal((await api.listProductTypes()).find((p) => p._id === id)!.etag, one.etag);
      return one.json as unknown as ProductType;
    };
    const getDeviceType = async () => {
      const one = await req("GET", `device_types/${deviceType._id}`);
      assert.equal(one.status, 200);
      assert.equal(one.etag, one.json.etag);
      assert.equal((await api.listDeviceTypes())[0].etag, one.etag);
      return one.json;
    };
    const seen = new Map<string, Set<string>>();
    /** A tag this entity never had before. */
    const fresh = (entity: string, etag: string) => {
      if (!seen.has(entity)) seen.set(entity, new Set());
      assert.ok(!seen.get(entity)!.has(etag), `${entity}: etag ${etag} seen before`);
      seen.get(entity)!.add(etag);
    };

    await t.step("GET answers a strong ETag, the same as the etag member and the list row", async () => {
      const d = await getDevice("dev-1");
      assert.match(d.etag, /^"[^"]+"$/);
      fresh("dev-1", d.etag);
      fresh("pt", (await getProductType(pt._id)).etag);
      fresh("dt", (await getDeviceType()).etag as string);
      const patched = await req("PATCH", `devices/dev-1`, { json: { deviceId: "dev-1" } });
      assert.equal(patched.etag, patched.json.etag, "a PATCH answers the new ETag too");
      fresh("dev-1", patched.etag!);
    });

    await t.step("every change of a device moves its ETag; a check-in does not", async () => {
      const changes = [
        { productTypeId: pt._id, moduleIds: [m1, m2] },
        { moduleIds: [m1] },
        { moduleIds: [m1, m2] },
        { firmware: fwA._id },
        { firmware: null },
        { additionalTreatmentIds: [tr[0], tr[1]] },
        {},
      ];
      for (const change of changes) {
        const answer = await api.patchDevice({ deviceId: "dev-1", ...change });
        assert.equal((await getDevice("dev-1")).etag, answer.etag);
        fresh("dev-1", answer.etag);
      }
      const before = await getDevice("dev-1");
      await tick(); // a later last-seen time than the one written before
      await checkin("dev-1", "1.0");
      await checkin("dev-1", "2.0");
      const after = await getDevice("dev-1");
      assert.equal(after.etag, before.etag, "the device reporting in is not an operator's change");
      assert.notEqual(after.lastLoggedIn, before.lastLoggedIn);
    });

    await t.step("every change of a product type moves its ETag; cascades move the devices' ETags", async () => {
      const device = await getDevice("dev-1");
      for (
        const body of [
          ptBody(pt, { name: "Baby 2" }),
          ptBody(pt, { name: "Baby 2", theme: { primary: "#123456" } }),
          ptBody(pt, { name: "Baby 2" }, ["m4"]),
          { ...ptBody(pt, { name: "Baby 2" }), modules: ptBody(pt).modules.map((m) => ({ ...m, name: `${m.name}!` })) },
        ]
      ) {
        pt = await api.patchProductType(body, { ifMatch: pt.etag });
        assert.equal((await getProductType(pt._id)).etag, pt.etag);
        fresh("pt", pt.etag);
      }
      assert.equal((await getDevice("dev-1")).etag, device.etag, "renames and module edits leave the devices");
      // Removing m2, which dev-1 has: the device loses it and its ETag moves.
      pt = await api.patchProductType({ ...ptBody(pt), modules: ptBody(pt).modules.filter((m) => m._id !== m2) });
      fresh("pt", pt.etag);
      const lost = await getDevice("dev-1");
      assert.deepEqual(lost.moduleIds, [m1]);
      fresh("dev-1", lost.etag);
      // Deleting the type: its devices lose it and their ETags move; other devices keep theirs.
      const other = await getDevice("dev-2");
      const doomed = await api.createProductType("Doomed");
      await api.patchDevice({ deviceId: "dev-1", productTypeId: doomed._id });
      const onDoomed = await getDevice("dev-1");
      assert.equal((await req("DELETE", `product_types/${doomed._id}`, { ifMatch: doomed.etag })).status, 204);
      const orphan = await getDevice("dev-1");
      assert.equal(orphan.productTypeId, null);
      assert.notEqual(orphan.etag, onDoomed.etag);
      fresh("dev-1", orphan.etag);
      assert.equal((await getDevice("dev-2")).etag, other.etag);
    });

    await t.step("a device type's default firmware moves its ETag", async () => {
      for (const defaultFirmware of [fwA._id, fwB._id, null]) {
        const answer = await req("PATCH", `device_types/${deviceType._id}`, {
          json: { _id: deviceType._id, defaultFirmware },
        });
        assert.equal(answer.status, 200);
        assert.equal(answer.etag, answer.json.etag);
        assert.equal((await getDeviceType()).etag, answer.etag);
        fresh("dt", answer.etag!);
      }
    });

    await t.step("a stale If-Match is 412 precondition_failed with a sentence, and nothing changes", async () => {
      const device = await getDevice("dev-2");
      await api.patchDevice({ deviceId: "dev-2", firmware: fwA._id }, { ifMatch: device.etag });
      const deviceNow = await getDevice("dev-2");
      const typeNow = await getProductType(pt._id);
      const dtNow = await getDeviceType();
      const stale = '"1"';
      const refusals: [string, string, unknown?][] = [
        ["PATCH", "devices/dev-2", { deviceId: "dev-2", firmware: null }],
        ["PATCH", "devices/dev-2", { deviceId: "dev-2", firmware: "no-such-firmware" }],
        ["DELETE", "devices/dev-2"],
        ["PATCH", `product_types/${pt._id}`, { ...ptBody(pt, { name: "Stale" }), modules: [] }],
        ["DELETE", `product_types/${pt._id}`],
        ["PATCH", `device_types/${deviceType._id}`, { _id: deviceType._id, defaultFirmware: fwB._id }],
      ];
      for (const [method, path, json] of refusals) {
        for (const ifMatch of [stale, device.etag, `W/${deviceNow.etag}`, `W/${typeNow.etag}`, `W/${dtNow.etag}`]) {
          const r = await req(method, path, { ifMatch, json });
          assert.equal(r.status, 412, `${method} ${path} If-Match ${ifMatch}: ${JSON.stringify(r.json)}`);
          assert.equal(r.json.error, "precondition_failed");
          assert.match(r.json.msg!, STALE);
        }
      }
      assert.match((await req("DELETE", "devices/dev-2", { ifMatch: stale })).json.msg!, /^Device dev-2 was changed/);
      assert.match(
        (await req("DELETE", `product_types/${pt._id}`, { ifMatch: stale })).json.msg!,
        new RegExp(`^Product type ${pt.name} was changed`),
      );
      assert.deepEqual(await getDevice("dev-2"), deviceNow);
      assert.deepEqual(await getProductType(pt._id), typeNow);
      assert.deepEqual(await getDeviceType(), dtNow);
    });

    await t.step("the current tag, a list holding it, or * go ahead; without If-Match as before", async () => {
      let d = await getDevice("dev-2");
      const forms = [
        (tag: string) => tag,
        (tag: string) => `"x", W/"y", ${tag}`,
        (tag: string) => `, ${tag},`,
        () => "*",
        () => " * ",
        () => undefined,
      ];
      for (const form of forms) {
        const ifMatch = form(d.etag);
        const r = await req("PATCH", "devices/dev-2", { ifMatch, json: { deviceId: "dev-2", firmware: null } });
        assert.equal(r.status, 200, `If-Match ${ifMatch}: ${JSON.stringify(r.json)}`);
        assert.notEqual(r.etag, d.etag);
        d = r.json as unknown as Device;
      }
      const r = await req("PATCH", `product_types/${pt._id}`, { ifMatch: "*", json: ptBody(pt) });
      assert.equal(r.status, 200);
      pt = r.json as unknown as ProductType;
    });

    await t.step("a malformed If-Match is 400 naming it, an unknown entity still 404", async () => {
      const before = await getDevice("dev-2");
      for (const ifMatch of ["", "  ", "abc", '"unterminated', '"a" "b"', '*, "a"', 'w/"a"', '"a",b', '"in"side"']) {
        const r = await req("PATCH", "devices/dev-2", { ifMatch, json: { deviceId: "dev-2", firmware: null } });
        assert.equal(r.status, 400, `If-Match ${JSON.stringify(ifMatch)}: ${JSON.stringify(r.json)}`);
        assert.equal(r.json.error, "invalid_request");
        assert.match(r.json.msg!, /^If-Match: /);
      }
      assert.deepEqual(await getDevice("dev-2"), before);
      assert.equal((await req("PATCH", "devices/nope", { ifMatch: "*", json: { deviceId: "nope" } })).status, 404);
      assert.equal((await req("DELETE", "product_types/nope", { ifMatch: '"1"' })).status, 404);
      assert.equal((await req("GET", "device_types/nope")).status, 404);
    });

    await t.step("the issue's lost update: a stale rename no longer deletes a module added meanwhile", async () => {
      const a = await api.getProductType(pt._id);
      const b = await api.getProductType(pt._id);
      const added = await api.patchProductType(ptBody(a, {}, ["Added by A"]), { ifMatch: a.etag });
      const newModule = added.modules.find((m) => m.name === "Added by A")!._id;
      await api.patchDevice({ deviceId: "dev-1", productTypeId: pt._id, moduleIds: [newModule] });
      const renamed = await req("PATCH", `product_types/${pt._id}`, {
        ifMatch: b.etag,
        json: ptBody(b, { name: "Renamed by B" }),
      });
      assert.equal(renamed.status, 412);
      assert.deepEqual(await api.getProductType(pt._id), added);
      assert.deepEqual((await api.getDevice("dev-1")).moduleIds, [newModule], "devices keep the module");
      // B reloads and applies the rename again: both changes are kept.
      const reloaded = await api.getProductType(pt._id);
      pt = await api.patchProductType(ptBody(reloaded, { name: "Renamed by B" }), { ifMatch: reloaded.etag });
      assert.equal(pt.name, "Renamed by B");
      assert.ok(pt.modules.some((m) => m._id === newModule));
    });

    await t.step(
      "a hundred PATCHes at once with the same If-Match: one 200, 99 × 412, the winner's state",
      async () => {
        const type = await api.getProductType(pt._id);
        const typeAnswers = await Promise.all(
          Array.from(
            { length: 100 },
            (_, i) =>
              req("PATCH", `product_types/${pt._id}`, {
                ifMatch: type.etag,
                json: ptBody(type, { name: `Race ${i}` }),
              }),
          ),
        );
        const typeWinners = typeAnswers.filter((r) => r.status === 200);
        assert.equal(typeWinners.length, 1);
        assert.equal(
          typeAnswers.filter((r) => r.status === 412).length,
          99,
        );
        assert.deepEqual(await getProductType(pt._id), typeWinners[0].json);

        const device = await getDevice("race");
        const deviceAnswers = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            req("PATCH", "devices/race", {
              ifMatch: device.etag,
              json: { deviceId: "race", additionalTreatmentIds: [tr[i]], firmware: i % 2 ? fwA._id : fwB._id },
            })),
        );
        const deviceWinners = deviceAnswers.filter((r) => r.status === 200);
        assert.equal(deviceWinners.length, 1);
        assert.equal(deviceAnswers.filter((r) => r.status === 412).length, 99);
        assert.deepEqual(await getDevice("race"), deviceWinners[0].json);
      },
    );

    await t.step(
      "updates chained on the latest ETag all land; racing writers that reload on 412 lose nothing",
      async () => {
        let device = await api.getDevice("race");
        device = await api.patchDevice({ deviceId: "race", additionalTreatmentIds: [] }, { ifMatch: device.etag });
        for (let i = 0; i < 30; i++) {
          device = await api.patchDevice(
            { deviceId: "race", additionalTreatmentIds: [...device.additionalTreatmentIds, tr[50 + i]] },
            { ifMatch: device.etag },
          );
        }
        assert.deepEqual((await api.getDevice("race")).additionalTreatmentIds, tr.slice(50, 80));

        // Ten operators each add five modules at once, each reloading and trying again when refused.
        const start = (await api.getProductType(pt._id)).modules.length;
        let refused = 0;
        const writer = async (w: number) => {
          for (let i = 0; i < 5; i++) {
            for (;;) {
              const current = await api.getProductType(pt._id);
              const r = await req("PATCH", `product_types/${pt._id}`, {
                ifMatch: current.etag,
                json: ptBody(current, {}, [`w${w}-${i}`]),
              });
              if (r.status === 200) break;
              assert.equal(r.status, 412);
              refused++;
            }
          }
        };
        await Promise.all(Array.from({ length: 10 }, (_, w) => writer(w)));
        const names = (await api.getProductType(pt._id)).modules.map((m) => m.name);
        assert.equal(names.length, start + 50, `every module added is there (${refused} refusals on the way)`);
        for (let w = 0; w < 10; w++) for (let i = 0; i < 5; i++) assert.ok(names.includes(`w${w}-${i}`));
      },
    );

    await t.step("DELETE with the current ETag goes ahead", async () => {
      const d = await getDevice("dev-2");
      assert.equal((await req("DELETE", "devices/dev-2", { ifMatch: d.etag })).status, 204);
      assert.equal((await req("GET", "devices/dev-2")).status, 404);
      const current = await getProductType(pt._id);
      assert.equal((await req("DELETE", `product_types/${pt._id}`, { ifMatch: current.etag })).status, 204);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
