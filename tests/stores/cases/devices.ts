import assert from "node:assert/strict";
import { InvalidError, NotFoundError } from "../../../server/db/errors.ts";
import {
  addFirmware,
  addProductType,
  addTreatments,
  checkin,
  type ConformanceOptions,
  INFO,
  rejectsWith,
  storeTest,
  tick,
} from "../fixtures.ts";

export function deviceCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "devices: get, list, search and paging", async (stores, t) => {
    const { devices } = stores;
    await t.step("an empty store", async () => {
      assert.equal(await devices.get("nope"), null);
      assert.deepEqual(await devices.list(0, 25), { data: [], total: 0 });
    });
    const ids = ["b-2", "A_1", "a%1", "c-3", "B-20", "d.4", "x:5"];
    for (const id of ids) await checkin(stores, id);

    await t.step("ordered by deviceId, paged, with the total", async () => {
      const sorted = [...ids].sort();
      const all = await devices.list(0, 100);
      assert.deepEqual(all.data.map((d) => d.deviceId), sorted);
      assert.equal(all.total, ids.length);
      assert.deepEqual((await devices.list(1, 3)).data.map((d) => d.deviceId), sorted.slice(3, 6));
      assert.deepEqual((await devices.list(2, 3)).data.map((d) => d.deviceId), sorted.slice(6));
      assert.deepEqual(await devices.list(5, 3), { data: [], total: ids.length });
    });

    await t.step("q is a literal substring, ASCII case folded", async () => {
      const found = async (q: string) => (await devices.list(0, 100, q)).data.map((d) => d.deviceId);
      assert.deepEqual(await found("b-2"), ["B-20", "b-2"]);
      assert.deepEqual(await found("%"), ["a%1"]);
      assert.deepEqual(await found("_"), ["A_1"]);
      assert.deepEqual(await found("a"), ["A_1", "a%1"]);
      assert.deepEqual(await found("zzz"), []);
      const page = await devices.list(0, 1, "-");
      assert.equal(page.total, 3);
      assert.deepEqual(await devices.list(9, 1, "-"), { data: [], total: 3 });
    });

    await t.step("get answers what list does", async () => {
      const [first] = (await devices.list(0, 1)).data;
      assert.deepEqual(await devices.get(first.deviceId), first);
    });
  });

  storeTest(engine, options, "devices: patch rules, messages and writes", async (stores, t) => {
    const { devices } = stores;
    const tr = await addTreatments(stores, ["T1", "T2"]);
    const fw = await addFirmware(stores, "dev.xz");
    const a = await addProductType(stores, "A", [["a-default", true, []], ["a-opt", false, [tr.T1]]]);
    const b = await addProductType(stores, "B", [["b-opt", false, []]]);
    const [aDefault, aOpt] = a.modules.map((m) => m._id);
    const [bOpt] = b.modules.map((m) => m._id);
    await checkin(stores, "dev-1");
    const before = (await devices.get("dev-1"))!;

    await t.step("an unknown device is NotFoundError", async () => {
      await rejectsWith(devices.patch("ghost", {}), NotFoundError, "No device with deviceId ghost.");
    });

    await t.step("each unknown id is InvalidError naming the field, in field order, nothing written", async () => {
      const refused: [Parameters<typeof devices.patch>[1], string][] = [
        [{ productTypeId: "pt-x", firmware: "fw-x" }, "productTypeId: no product type with id pt-x."],
        [{ firmware: "fw-x", additionalTreatmentIds: ["t-x"] }, "firmware: no firmware with id fw-x."],
        [{ additionalTreatmentIds: [tr.T1, "t-x", "t-y"] }, "additionalTreatmentIds: no treatment with id t-x."],
        [{ moduleIds: ["m-x"], productTypeId: a._id }, "moduleIds: no module with id m-x."],
        [{ moduleIds: [aOpt] }, `moduleIds: the device has no product type, so it cannot enable module ${aOpt}.`],
        [
          { productTypeId: a._id, moduleIds: [aOpt, bOpt] },
          `moduleIds: module ${bOpt} is not a module of product type ${a._id}.`,
        ],
      ];
      for (const [patch, msg] of refused) await rejectsWith(devices.patch("dev-1", patch), InvalidError, msg);
      assert.deepEqual(await devices.get("dev-1"), before);
    });

    await t.step("a valid patch writes every field, bumps updatedAt and answers the device as saved", async () => {
      await tick();
      const saved = await devices.patch("dev-1", {
        productTypeId: a._id,
        moduleIds: [aOpt],
        firmware: fw._id,
        additionalTreatmentIds: [tr.T2, tr.T1],
      });
      assert.deepEqual(saved, {
        ...before,
        productTypeId: a._id,
        moduleIds: [aOpt],
        firmware: fw._id,
        additionalTreatmentIds: [tr.T2, tr.T1],
        updatedAt: saved.updatedAt,
        etag: saved.etag,
      });
      assert.ok(saved.updatedAt > before.updatedAt);
      assert.notEqual(saved.etag, before.etag);
      assert.deepEqual(await devices.get("dev-1"), saved);
    });

    await t.step("an empty patch still bumps updatedAt; default modules may be listed", async () => {
      const current = (await devices.get("dev-1"))!;
      await tick();
      const saved = await devices.patch("dev-1", {});
      assert.ok(saved.updatedAt > current.updatedAt);
      assert.deepEqual((await devices.patch("dev-1", { moduleIds: [aDefault, aOpt] })).moduleIds, [aDefault, aOpt]);
    });

    await t.step("the same product type keeps the modules; another one without moduleIds clears them", async () => {
      assert.deepEqual((await devices.patch("dev-1", { productTypeId: a._id })).moduleIds, [aDefault, aOpt]);
      const moved = await devices.patch("dev-1", { productTypeId: b._id });
      assert.deepEqual(moved.moduleIds, []);
      assert.equal(moved.productTypeId, b._id);
      const cleared = await devices.patch("dev-1", { productTypeId: null, firmware: null, additionalTreatmentIds: [] });
      assert.deepEqual(
        [cleared.productTypeId, cleared.firmware, cleared.additionalTreatmentIds, cleared.moduleIds],
        [null, null, [], []],
      );
    });

    await t.step("remove: the device and its links go; NotFoundError when unknown", async () => {
      await devices.patch("dev-1", { productTypeId: a._id, moduleIds: [aOpt], additionalTreatmentIds: [tr.T1] });
      await devices.remove("dev-1");
      assert.equal(await devices.get("dev-1"), null);
      await rejectsWith(devices.remove("dev-1"), NotFoundError, "No device with deviceId dev-1.");
      // The same id may check in again and starts from scratch.
      const again = await checkin(stores, "dev-1", INFO);
      assert.deepEqual([again.productType, again.modules, again.treatments], [null, [], []]);
    });
  });
}
