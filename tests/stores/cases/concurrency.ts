import assert from "node:assert/strict";
import { ConflictError, InvalidError, StoreError } from "../../../server/db/errors.ts";
import { addProductType, checkin, type ConformanceOptions, firmwareRow, storeTest } from "../fixtures.ts";

/** Calls made at once must behave as if made one after another: each check sees the state its write changes. */
export function concurrencyCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "concurrent calls are serialized", async (stores, t) => {
    const { devices, productTypes } = stores;
    const a = await addProductType(stores, "A", [["a1", false, []], ["a2", false, []]]);
    const b = await addProductType(stores, "B", [["b1", false, []]]);
    const modulesOf = new Map([a, b].map((pt) => [pt._id, new Set(pt.modules.map((m) => m._id))]));
    await checkin(stores, "dev");

    await t.step("patches of one device: every answer and the end state are consistent", async () => {
      const patches = Array.from({ length: 30 }, (_, i) => {
        const pt = [a, b][i % 2];
        return devices.patch("dev", { productTypeId: pt._id, moduleIds: [pt.modules[0]._id] });
      });
      const answers = await Promise.all(patches);
      const end = (await devices.get("dev"))!;
      for (const d of [...answers, end]) {
        assert.equal(d.moduleIds.length, 1);
        assert.ok(modulesOf.get(d.productTypeId!)!.has(d.moduleIds[0]), JSON.stringify(d));
      }
      // Calls made at once have no order (on PostgreSQL they race for the write lock over several connections), but
      // each one saw the one before it: 30 revisions in a row, and the end state is the last one's answer.
      const revision = (d: { etag: string }) => Number(JSON.parse(d.etag));
      const revisions = answers.map(revision).sort((x, y) => x - y);
      assert.deepEqual(revisions, Array.from({ length: 30 }, (_, i) => revisions[0] + i));
      assert.deepEqual(end, answers.find((d) => revision(d) === revisions[29]));
    });

    await t.step("a patch enabling a module while the module is removed: refused, or removed after", async () => {
      const a2 = a.modules[1]._id;
      await devices.patch("dev", { productTypeId: a._id, moduleIds: [] });
      const results = await Promise.allSettled([
        devices.patch("dev", { moduleIds: [a2] }),
        productTypes.update(a._id, { name: "A", modules: [a.modules[0]] }),
        devices.patch("dev", { moduleIds: [a2] }),
      ]);
      assert.equal(results[1].status, "fulfilled");
      for (const r of [results[0], results[2]]) {
        if (r.status === "rejected") assert.ok(r.reason instanceof InvalidError, String(r.reason));
      }
      assert.deepEqual((await devices.get("dev"))!.moduleIds, []);
    });

    await t.step("one name, created at once: one wins, the others are ConflictError", async () => {
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => productTypes.create("Same")));
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of results) if (r.status === "rejected") assert.ok(r.reason instanceof ConflictError);
      const firmwares = await Promise.allSettled(
        Array.from({ length: 8 }, () => stores.firmwares.insert(firmwareRow("same.xz"))),
      );
      assert.equal(firmwares.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of firmwares) if (r.status === "rejected") assert.ok(r.reason instanceof ConflictError);
    });

    await t.step("check-ins at once: each device once, every answer its own", async () => {
      const ids = Array.from({ length: 40 }, (_, i) => `burst-${i % 10}`);
      const answers = await Promise.all(ids.map((id) => checkin(stores, id)));
      answers.forEach((config, i) => assert.equal(config.deviceId, ids[i]));
      assert.equal((await devices.list(0, 100, "burst-")).total, 10);
    });

    await t.step("the errors are domain errors, never engine errors", async () => {
      const err = await productTypes.create("same").then(() => null, (e) => e);
      assert.ok(err instanceof StoreError);
    });
  });
}
