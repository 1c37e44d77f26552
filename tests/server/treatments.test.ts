/** GET treatments, GET treatments/{id}, successful imports and GET treatment_images/{id}. */
import assert from "node:assert/strict";
import { ApiError } from "../../shared/client.ts";
import { Treatment } from "../../shared/schemas/treatment.ts";
import { generateTreatments, type ImportTreatment, makeImportDb, runSql } from "../../testing/import_db.ts";
import { fileSource } from "../../testing/files.ts";
import { listFiles, startServer } from "../../testing/server.ts";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 9, 9, 9]);

const channel = (current: number, polarity = "biphasic") => ({
  current,
  frequency: 50,
  polarity,
  riseTime: 100,
  holdTime: 2000,
  fallTime: 150,
});

/** What the API should show for an imported treatment's phases and content. */
const content = (t: ImportTreatment) => ({
  name: t.name.trim(),
  category: t.category ?? null,
  use: t.use ?? null,
  phases: t.phases,
});
const shown = (t: Treatment) => ({ name: t.name, category: t.category, use: t.use, phases: t.phases });

async function statusOf(p: Promise<unknown>): Promise<number | undefined> {
  const err = await p.then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `expected ApiError, got ${err}`);
  return err.status;
}

Deno.test("treatments: import, list, get, overwrite by name, images", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "treatments-test-" });
  const file = async (name: string, treatments: ImportTreatment[]) => {
    const path = `${dir}/${name}`;
    makeImportDb(path, treatments);
    return await fileSource(path);
  };
  try {
    await t.step("the routes need a token; the list starts empty", async () => {
      assert.equal((await srv.fetch("/api/v1/treatments")).status, 401);
      assert.equal((await srv.fetch("/api/v1/treatment_images/x")).status, 401);
      assert.deepEqual(await api.listTreatments(), []);
    });

    const first: ImportTreatment[] = [
      {
        name: "  Knee pain  ",
        category: "Pain relief",
        use: "Twice a day",
        phases: [{ duration: 60, channels: [channel(10), channel(12.5, "negative")] }, {
          duration: 120.5,
          channels: [channel(0)],
        }],
        images: [{ mimeType: "image/png", data: PNG }, { mimeType: "image/jpeg", data: JPEG }],
      },
      { name: "beta warm-up", category: null, use: null, phases: [] },
      { name: "Alpha massage", category: "Recovery", use: "  ", phases: [{ duration: 0, channels: [] }] },
    ];
    let knee: Treatment;

    await t.step("an import creates treatments; the list is ordered by name ignoring case", async () => {
      assert.deepEqual(await api.importTreatments(await file("first.sqlite3", first)), {
        imported: 3,
        created: 3,
        updated: 0,
      });
      const list = await api.listTreatments();
      assert.deepEqual(list.map((x) => x.name), ["Alpha massage", "beta warm-up", "Knee pain"]);
      for (const x of list) Treatment.strict().parse(x);
      knee = list[2];
      assert.deepEqual(shown(knee), content(first[0]));
      assert.deepEqual(shown(list[0]), { ...content(first[2]), use: null }); // blank text becomes null
      assert.deepEqual(shown(list[1]), content(first[1]));
      assert.equal(knee.images.length, 2);
      assert.equal(knee.createdAt, knee.updatedAt);
      assert.match(knee.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
    });

    await t.step("GET treatments/{id} answers the same treatment; unknown ids are 404", async () => {
      assert.deepEqual(await api.getTreatment(knee._id), knee);
      assert.equal(await statusOf(api.getTreatment("no-such-id")), 404);
      const res = await srv.fetch("/api/v1/treatments/no-such-id", { token: api.token });
      assert.equal((await res.json()).error, "not_found");
    });

    await t.step("images are served with their type, no-store, sandboxed and never sniffed", async () => {
      for (const [i, bytes, type] of [[0, PNG, "image/png"], [1, JPEG, "image/jpeg"]] as const) {
        const res = await srv.fetch(`/api/v1/treatment_images/${knee.images[i]}`, { token: api.token });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), type);
        assert.equal(res.headers.get("cache-control"), "no-store");
        assert.match(res.headers.get("content-security-policy") ?? "", /\bsandbox\b/);
        assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        assert.deepEqual(await res.bytes(), bytes);
      }
      const missing = await srv.fetch("/api/v1/treatment_images/nope", { token: api.token });
      assert.equal(missing.status, 404);
      assert.equal((await missing.json()).error, "not_found");
    });

    await t.step("a re-import overwrites by name: same _id and createdAt, new content, images replaced", async () => {
      await new Promise((r) => setTimeout(r, 5));
      const second: ImportTreatment[] = [
        {
          name: "Knee pain",
          category: "Rehabilitation",
          use: "Once a day",
          phases: [{ duration: 30, channels: [channel(3), channel(4), channel(5)] }],
          images: [{ mimeType: "image/jpeg", data: JPEG }],
        },
        { name: "Zeta new", category: "New", use: null, phases: [{ duration: 10, channels: [channel(1)] }] },
      ];
      const before = await api.listTreatments();
      assert.deepEqual(await api.importTreatments(await file("second.sqlite3", second)), {
        imported: 2,
        created: 1,
        updated: 1,
      });
      const list = await api.listTreatments();
      assert.deepEqual(list.map((x) => x.name), ["Alpha massage", "beta warm-up", "Knee pain", "Zeta new"]);
      const updated = list[2];
      assert.equal(updated._id, knee._id);
      assert.equal(updated.createdAt, knee.createdAt);
      assert.ok(updated.updatedAt > knee.updatedAt, `${updated.updatedAt} > ${knee.updatedAt}`);
      assert.deepEqual(shown(updated), content(second[0]));
      assert.equal(updated.images.length, 1);
      for (const old of knee.images) assert.equal(await statusOf(api.treatmentImage(old)), 404);
      const blob = await api.treatmentImage(updated.images[0]);
      assert.equal(blob.type, "image/jpeg");
      assert.deepEqual(await blob.bytes(), JPEG);
      // Treatments not in the file are untouched.
      assert.deepEqual(list.slice(0, 2), before.slice(0, 2));
    });

    await t.step("phases and channels follow position, not row order; images follow position", async () => {
      const path = `${dir}/shuffled.sqlite3`;
      makeImportDb(path, []);
      const rows = `
        INSERT INTO treatments VALUES (7, 'Shuffled', NULL, NULL);
        INSERT INTO phases VALUES (1, 7, 30, 3.0), (2, 7, 10, 1.0), (3, 7, 20, 2.0);
        INSERT INTO channels VALUES
          (1, 3, 2, 2.2, 1, 'p', 0, 0, 0), (2, 2, 1, 1.1, 1, 'p', 0, 0, 0), (3, 3, 1, 2.1, 1, 'p', 0, 0, 0),
          (4, 1, 5, 3.1, 1, 'p', 0, 0, 0), (5, 2, 9, 1.2, 1, 'p', 0, 0, 0);
      `;
      runSql(path, rows);
      runSql(path, "INSERT INTO images VALUES (1, 7, 2, 'image/jpeg', ?), (2, 7, 1, 'image/png', ?)", JPEG, PNG);
      assert.deepEqual(await api.importTreatments(await fileSource(path)), { imported: 1, created: 1, updated: 0 });
      const shuffled = (await api.listTreatments()).find((x) => x.name === "Shuffled")!;
      assert.deepEqual(shuffled.phases.map((p) => [p.duration, p.channels.map((c) => c.current)]), [
        [1, [1.1, 1.2]],
        [2, [2.1, 2.2]],
        [3, [3.1]],
      ]);
      assert.deepEqual(await (await api.treatmentImage(shuffled.images[0])).bytes(), PNG);
      assert.deepEqual(await (await api.treatmentImage(shuffled.images[1])).bytes(), JPEG);
    });

    await t.step("a WAL-mode file and a file without an images table import fine", async () => {
      const path = `${dir}/wal.sqlite3`;
      makeImportDb(path, generateTreatments(3, { phases: 2, channels: 2, images: 1, namePrefix: "Wal" }));
      runSql(path, "PRAGMA journal_mode = WAL; DROP TABLE images");
      const header = (await Deno.readFile(path)).subarray(18, 20);
      assert.deepEqual([...header], [2, 2]);
      assert.deepEqual(await api.importTreatments(await fileSource(path)), { imported: 3, created: 3, updated: 0 });
      const wal = (await api.listTreatments()).filter((x) => x.name.startsWith("Wal "));
      assert.equal(wal.length, 3);
      assert.ok(wal.every((x) => x.images.length === 0 && x.phases.length === 2));
    });

    await t.step("an import file with no rows imports nothing", async () => {
      const before = await api.listTreatments();
      assert.deepEqual(await api.importTreatments(await file("empty.sqlite3", [])), {
        imported: 0,
        created: 0,
        updated: 0,
      });
      assert.deepEqual(await api.listTreatments(), before);
    });

    await t.step("500 treatments x 10 phases x 4 channels: imported, then all updated", async () => {
      const many = generateTreatments(500, { phases: 10, channels: 4, images: 1, namePrefix: "Bulk" });
      const source = await file("bulk.sqlite3", many);
      assert.deepEqual(await api.importTreatments(source), { imported: 500, created: 500, updated: 0 });
      const ids = (await api.listTreatments()).filter((x) => x.name.startsWith("Bulk ")).map((x) => x._id);
      assert.deepEqual(await api.importTreatments(source), { imported: 500, created: 0, updated: 500 });
      const bulk = (await api.listTreatments()).filter((x) => x.name.startsWith("Bulk "));
      assert.deepEqual(bulk.map((x) => x._id), ids);
      assert.deepEqual(bulk.map(shown), many.map(content));
      assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
