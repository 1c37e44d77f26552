import assert from "node:assert/strict";
import type { ImportedTreatment } from "../../../server/db/stores.ts";
import { summarize, type Treatment } from "../../../shared/schemas/treatment.ts";
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

  storeTest(engine, options, "treatments: summaries are the list without phases, kept current", async (stores, t) => {
    const { treatments } = stores;
    const ch = { current: 1, frequency: 50, polarity: "biphasic", riseTime: 1, holdTime: 2, fallTime: 3 };
    const phases = (...channels: number[]) =>
      JSON.stringify(channels.map((n, i) => ({ duration: 10 + i, channels: Array.from({ length: n }, () => ch) })));
    const expected = async () => (await listTreatments(stores)).map(summarize);

    await t.step("empty, then one per treatment in list order with counts", async () => {
      assert.deepEqual(await treatments.listSummaries(), []);
      await treatments.import([
        treatment("zeta", { phasesJson: phases(1, 4, 2), images: [{ mimeType: "image/png", data: PNG(1) }] }),
        treatment("Alpha", { phasesJson: "[]", category: null }),
        treatment("beta", { phasesJson: phases(1, 4, 2) }),
      ]);
      const summaries = await treatments.listSummaries();
      assert.deepEqual(summaries, await expected());
      assert.deepEqual(summaries.map((s) => [s.name, s.channels, s.phases, s.images]), [
        ["Alpha", 0, 0, 0],
        ["beta", 4, 3, 0],
        ["zeta", 4, 3, 1],
      ]);
    });

    await t.step("an overwrite shows in the next summaries", async () => {
      await tick();
      await treatments.import([treatment("beta", { phasesJson: phases(6), category: "Sleep" })]);
      const summaries = await treatments.listSummaries();
      assert.deepEqual(summaries, await expected());
      assert.deepEqual(summaries[1], { ...summaries[1], name: "beta", channels: 6, phases: 1, category: "Sleep" });
    });
  });

  storeTest(engine, options, "treatments: the list streams in chunks, all from one snapshot", async (stores, t) => {
    const { treatments } = stores;
    // About 2 KB of phases each: 300 treatments make several chunks.
    const phases = (duration: number) =>
      JSON.stringify(Array.from({ length: 16 }, (_, i) => ({
        duration: duration + i,
        channels: [{ current: 1.5, frequency: 50, polarity: "biphasic", riseTime: 1, holdTime: 2, fallTime: 3 }],
      })));
    const names = Array.from({ length: 300 }, (_, i) => `${i % 2 ? "t" : "T"}reatment ${String(299 - i).padStart(3)}`);
    await treatments.import(names.map((name) => treatment(name, { phasesJson: phases(1) })));
    const readAll = async (chunks: AsyncIterator<Uint8Array>) => {
      const parts: Uint8Array[] = [];
      for (let r = await chunks.next(); !r.done; r = await chunks.next()) parts.push(r.value);
      return parts;
    };
    const text = (parts: Uint8Array[]) => {
      const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
      let at = 0;
      for (const p of parts) all.set(p, at), at += p.byteLength;
      return new TextDecoder().decode(all);
    };

    await t.step(
      "the chunks join into the list: name order ignoring case, each treatment as GET answers it",
      async () => {
        const parts = await readAll(treatments.listJsonChunks()[Symbol.asyncIterator]());
        assert.ok(parts.length > 1, `${parts.length} chunk(s)`);
        const body = text(parts);
        const list = JSON.parse(body) as Treatment[];
        assert.deepEqual(
          list.map((x) => x.name),
          [...names].sort((a, b) => a.toLowerCase() < b.toLowerCase() ? -1 : 1),
        );
        const expected = await Promise.all(list.map((x) => treatments.get(x._id)));
        assert.equal(body, JSON.stringify(expected));
      },
    );

    await t.step("an import while the list is read does not show in it", async () => {
      const before = await listTreatments(stores);
      const chunks = treatments.listJsonChunks()[Symbol.asyncIterator]();
      const first = await chunks.next();
      assert.ok(!first.done);
      await treatments.import([
        ...names.map((name) => treatment(name, { phasesJson: "[]", use: "changed" })),
        treatment("A new one"),
      ]);
      const body = text([first.value, ...await readAll(chunks)]);
      assert.deepEqual(JSON.parse(body), before);
      const after = await listTreatments(stores);
      assert.equal(after.length, 301);
      assert.ok(after.every((x) => x.name === "A new one" || (x.use === "changed" && x.phases.length === 0)));
    });

    await t.step("a reader that stops early leaves the store working", async () => {
      const chunks = treatments.listJsonChunks()[Symbol.asyncIterator]();
      await chunks.next();
      await chunks.return?.();
      await treatments.import([treatment("After a stop")]);
      assert.equal((await listTreatments(stores)).length, 302);
    });
  });

  storeTest(engine, options, "treatments: imports leave no content behind, concurrent or failed", async (stores, t) => {
    const { treatments } = stores;
    const withImage = (name: string, n: number) =>
      treatment(name, {
        phasesJson: `[{"duration":${n},"channels":[]}]`,
        images: [{ mimeType: "image/png", data: PNG(n) }],
      });

    await t.step("two imports of the same names at once: each treatment ends as one of them wrote it", async () => {
      const names = Array.from({ length: 50 }, (_, i) => `same ${i}`);
      const [a, b] = await Promise.all([
        treatments.import(names.map((name) => withImage(name, 1))),
        treatments.import(names.map((name) => withImage(name, 2))),
      ]);
      assert.equal(a.imported + b.imported, 100);
      assert.equal(a.created + b.created, 50);
      const list = await listTreatments(stores);
      assert.equal(list.length, 50);
      for (const x of list) {
        const n = x.phases[0].duration;
        assert.ok(n === 1 || n === 2);
        assert.deepEqual(await treatments.image(x.images[0]), { mimeType: "image/png", data: PNG(n) });
      }
      assert.equal(await treatments.sweep(), 0);
    });

    await t.step("an import that fails half way changes nothing and leaves nothing behind", async () => {
      const before = await listTreatments(stores);
      const broken = {
        ...withImage("broken", 3),
        images: [{ mimeType: "image/png", data: null as unknown as Uint8Array }],
      };
      await assert.rejects(treatments.import([withImage("fine", 3), withImage("same 1", 3), broken]));
      assert.deepEqual(await listTreatments(stores), before);
      assert.equal(await treatments.sweep(), 0);
    });
  });
}
