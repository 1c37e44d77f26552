import assert from "node:assert/strict";
import { ConflictError, InvalidError, NotFoundError } from "../../../server/db/errors.ts";
import {
  addProductType,
  addTreatments,
  checkin,
  type ConformanceOptions,
  rejectsWith,
  storeTest,
  tick,
} from "../fixtures.ts";

export function productTypeCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "product types: create, list, get and names", async (stores, t) => {
    const { productTypes } = stores;
    await t.step("create answers a type without modules or theme", async () => {
      const created = await productTypes.create("Beta");
      assert.deepEqual(created, { ...created, name: "Beta", theme: {}, modules: [] });
      assert.equal(created.createdAt, created.updatedAt);
      assert.deepEqual(await productTypes.get(created._id), created);
      assert.equal(await productTypes.get("nope"), null);
    });
    await t.step("a name taken ignoring case is ConflictError", async () => {
      await rejectsWith(
        productTypes.create("BETA"),
        ConflictError,
        "A product type named BETA already exists (names ignore case).",
      );
    });
    await t.step("the list is ordered by name ignoring case", async () => {
      for (const name of ["gamma", "Alpha", "delta"]) await productTypes.create(name);
      assert.deepEqual((await productTypes.list()).map((p) => p.name), ["Alpha", "Beta", "delta", "gamma"]);
    });
  });

  storeTest(engine, options, "product types: update rules and messages", async (stores, t) => {
    const { productTypes } = stores;
    const tr = await addTreatments(stores, ["T1", "T2"]);
    const a = await addProductType(stores, "A", [["one", true, [tr.T1]], ["two", false, []]]);
    const b = await addProductType(stores, "B", [["b-one", false, []]]);
    const [one, two] = a.modules.map((m) => m._id);

    await t.step("unknown id NotFoundError, a name another type holds ConflictError", async () => {
      await rejectsWith(
        productTypes.update("nope", { name: "X", modules: [] }),
        NotFoundError,
        "No product type with id nope.",
      );
      await rejectsWith(
        productTypes.update(a._id, { name: "b", modules: [] }),
        ConflictError,
        "A product type named b already exists (names ignore case).",
      );
    });

    await t.step("module lists that do not fit are InvalidError naming modules.N, nothing written", async () => {
      const m = (name: string, _id?: string, treatmentIds: string[] = []) => ({
        _id,
        name,
        isDefault: false,
        treatmentIds,
      });
      const refused: [ReturnType<typeof m>[], string][] = [
        [[m("x", b.modules[0]._id)], `modules.0._id: ${b.modules[0]._id} is not a module of this product type.`],
        [[m("x", one), m("y", one)], `modules.1._id: module ${one} is listed more than once.`],
        [[m("x", one), m("y", undefined, [tr.T2, "t-x"])], "modules.1.treatmentIds: no treatment with id t-x."],
      ];
      for (const [modules, msg] of refused) {
        await rejectsWith(productTypes.update(a._id, { name: "A", modules }), InvalidError, msg);
      }
      assert.deepEqual(await productTypes.get(a._id), a);
    });

    await t.step("kept modules keep their _id, new ones get one, theme kept when left out", async () => {
      const themed = await productTypes.update(a._id, {
        name: "A",
        theme: { primaryColor: "#123456" },
        modules: a.modules,
      });
      assert.deepEqual(themed.theme, { primaryColor: "#123456" });
      await tick();
      const saved = await productTypes.update(a._id, {
        name: "a renamed",
        modules: [
          { _id: two, name: "two!", isDefault: true, treatmentIds: [tr.T2, tr.T1] },
          { name: "three", isDefault: false, treatmentIds: [] },
          { _id: one, name: "one", isDefault: true, treatmentIds: [] },
        ],
      });
      assert.equal(saved.name, "a renamed");
      assert.deepEqual(saved.theme, { primaryColor: "#123456" });
      assert.deepEqual(saved.modules.map((x) => [x.name, x.isDefault, x.treatmentIds]), [
        ["two!", true, [tr.T2, tr.T1]],
        ["three", false, []],
        ["one", true, []],
      ]);
      assert.deepEqual([saved.modules[0]._id, saved.modules[2]._id], [two, one]);
      assert.ok(![one, two].includes(saved.modules[1]._id));
      assert.ok(saved.updatedAt > a.updatedAt);
      assert.equal(saved.createdAt, a.createdAt);
      // Its own name in another case is not a conflict.
      assert.equal((await productTypes.update(a._id, { name: "A RENAMED", modules: saved.modules })).name, "A RENAMED");
    });
  });

  storeTest(engine, options, "product types: removed modules and types cascade to devices", async (stores, t) => {
    const { productTypes, devices } = stores;
    const a = await addProductType(stores, "A", [["keep", false, []], ["drop", false, []]]);
    const [keep, drop] = a.modules.map((m) => m._id);
    await checkin(stores, "with-drop");
    await checkin(stores, "with-keep");
    await checkin(stores, "untyped");
    await devices.patch("with-drop", { productTypeId: a._id, moduleIds: [keep, drop] });
    await devices.patch("with-keep", { productTypeId: a._id, moduleIds: [keep] });
    const [withDrop, withKeep, untyped] = await Promise.all(
      ["with-drop", "with-keep", "untyped"].map(async (id) => (await devices.get(id))!),
    );
    await tick();

    await t.step("a removed module leaves the devices that had it, whose updatedAt moves", async () => {
      await productTypes.update(a._id, { name: "A", modules: [a.modules[0]] });
      const after = (await devices.get("with-drop"))!;
      assert.deepEqual(after.moduleIds, [keep]);
      assert.ok(after.updatedAt > withDrop.updatedAt);
      assert.deepEqual(await devices.get("with-keep"), withKeep);
    });

    await t.step("remove: NotFoundError when unknown; its devices lose type and modules, updatedAt moves", async () => {
      await rejectsWith(productTypes.remove("nope"), NotFoundError, "No product type with id nope.");
      await tick();
      await productTypes.remove(a._id);
      assert.equal(await productTypes.get(a._id), null);
      for (const id of ["with-drop", "with-keep"]) {
        const d = (await devices.get(id))!;
        assert.deepEqual([d.productTypeId, d.moduleIds], [null, []]);
        assert.ok(d.updatedAt > withKeep.updatedAt);
      }
      assert.deepEqual(await devices.get("untyped"), untyped);
    });
  });
}
