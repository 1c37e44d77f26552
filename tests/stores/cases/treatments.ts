import assert from "node:assert/strict";
import type { ImportedTreatment } from "../../../server/db/stores.ts";
import { type ConformanceOptions, listTreatments, storeTest, tick } from "../fixtures.ts";

const PNG = (n: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, n]);

const treatment = (name: string, extra: Partial<ImportedTreatment> = {}): ImportedTreatment => ({
  name,
  category: "Pain relief",
  use: "TENS",
  phasesJson: '[{"duration":30,"channels":[]}]',
  images: [],
  ...extra,
});

export function treatmentCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "treatments: import, overwrite by name keeping _id, images", async (stores, t) => {
    const { treatments } = stores;
    await t.step("an empty list", async () => {
      assert.deepEqual(await listTreatments(stores), []);
      assert.equal(await treatments.get("nope"), null);
      assert.equal(await treatments.image("nope"), null);
    });

    await t.step("an import creates, lists by name ignoring case, with images", async () => {
      const counts = await treatments.import([
        treatment("beta", {
          images: [{ mimeType: "image/png", data: PNG(1) }, { mimeType: "image/jpeg", data: PNG(2) }],
        }),
        treatment("Alpha", { category: null, use: null }),
      ]);
      assert.deepEqual(counts, { imported: 2, created: 2, updated: 0 });
      const list = await listTreatments(stores);
      assert.deepEqual(list.map((x) => x.name), ["Alpha", "beta"]);
      assert.deepEqual(await treatments.get(list[1]._id), list[1]);
      assert.deepEqual(list[0], {
        ...list[0],
        category: null,
        use: null,
        images: [],
        phases: [{ duration: 30, channels: [] }],
      });
      const [img1, img2] = list[1].images;
      assert.deepEqual(await treatments.image(img1), { mimeType: "image/png", data: PNG(1) });
      assert.deepEqual(await treatments.image(img2), { mimeType: "image/jpeg", data: PNG(2) });
    });

    await t.step("a name that exists is overwritten in place: same _id and createdAt, images replaced", async () => {
      const [alpha, beta] = await listTreatments(stores);
      await tick();
      const counts = await treatments.import([
        treatment("beta", { use: "NMES", phasesJson: "[]", images: [{ mimeType: "image/png", data: PNG(3) }] }),
        treatment("gamma"),
      ]);
      assert.deepEqual(counts, { imported: 2, created: 1, updated: 1 });
      const after = (await treatments.get(beta._id))!;
      assert.deepEqual(
        [after._id, after.createdAt, after.use, after.phases, after.images.length],
        [beta._id, beta.createdAt, "NMES", [], 1],
      );
      assert.ok(after.updatedAt > beta.updatedAt);
      for (const old of beta.images) assert.equal(await treatments.image(old), null);
      assert.deepEqual(await treatments.image(after.images[0]), { mimeType: "image/png", data: PNG(3) });
      assert.deepEqual(await treatments.get(alpha._id), alpha);
      assert.deepEqual((await listTreatments(stores)).map((x) => x.name), ["Alpha", "beta", "gamma"]);
    });
  });
}
