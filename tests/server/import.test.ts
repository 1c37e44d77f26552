/** POST treatments/import refusals: each is a 4xx with {error, msg} and changes nothing. */
import assert from "node:assert/strict";
import { generateTreatments, makeImportDb, runSql } from "../../testing/import_db.ts";
import { fileSource } from "../../testing/files.ts";
import { listFiles, startServer, type TestServer } from "../../testing/server.ts";

/** Uploads raw bytes as the multipart field `file` with the given name. */
async function upload(srv: TestServer, token: string, bytes: Uint8Array<ArrayBuffer>, name: string) {
  const form = new FormData();
  form.append("file", new Blob([bytes]), name);
  const res = await srv.fetch("/api/v1/treatments/import", { method: "POST", token, body: form });
  return { status: res.status, body: await res.json() };
}

/** A valid import file (same names as the baseline, plus new ones) changed by the given SQL. */
async function fileWith(dir: string, sqlText: string, bind: (path: string) => void = () => {}) {
  const path = `${dir}/bad-${crypto.randomUUID()}.sqlite3`;
  makeImportDb(path, generateTreatments(6, { phases: 3, channels: 2, images: 1 }));
  runSql(path, sqlText);
  bind(path);
  return await Deno.readFile(path);
}

/** Rebuilds a table without constraints (a hostile file need not follow the NOT NULLs of §7). */
const loosen = (table: string) =>
  `CREATE TABLE loose AS SELECT * FROM ${table}; DROP TABLE ${table}; ALTER TABLE loose RENAME TO ${table};`;

Deno.test("refused treatment imports answer 4xx with a msg and change nothing", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "import-test-" });
  try {
    const base = `${dir}/base.sqlite3`;
    makeImportDb(base, generateTreatments(4, { phases: 3, channels: 2, images: 1 }));
    assert.deepEqual(await api.importTreatments(await fileSource(base)), { imported: 4, created: 4, updated: 0 });
    const before = await api.listTreatments();
    const imagesBefore = await Promise.all(before.flatMap((tr) => tr.images).map((id) => api.treatmentImage(id)));

    const refused = async (
      bytes: Uint8Array<ArrayBuffer>,
      status: number,
      error: string,
      msg: RegExp,
      name = "treatments.sqlite3",
    ) => {
      const res = await upload(srv, api.token, bytes, name);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.error, error);
      assert.match(res.body.msg, msg);
      assert.deepEqual(Object.keys(res.body).sort(), ["error", "msg"]);
      assert.deepEqual(await api.listTreatments(), before);
      assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
    };
    const failed = (bytes: Uint8Array<ArrayBuffer>, msg: RegExp) => refused(bytes, 400, "import_failed", msg);

    await t.step("not an SQLite file, empty file, truncated SQLite file", async () => {
      await failed(new TextEncoder().encode("name,category\nKnee,Pain\n".repeat(10)), /not an SQLite database/);
      await failed(new Uint8Array(0), /not an SQLite database/);
      const good = await Deno.readFile(base);
      assert.ok(good.length > 8192);
      await failed(good.slice(0, good.length - 4096), /truncated/);
      await failed(good.slice(0, 60), /truncated/);
      // A header that claims nothing about its size, cut short: SQLite itself finds the damage.
      const unknownSize = good.slice(0, good.length - 4096);
      unknownSize.set([0, 0, 0, 0], 92);
      await failed(unknownSize, /could not be read|malformed|treatments|phases|channels|images/);
    });

    await t.step("a name not ending in .sqlite3 is 415", async () => {
      const good = await Deno.readFile(base);
      await refused(good, 415, "unsupported_media_type", /\.sqlite3/, "treatments.db");
      await refused(good, 415, "unsupported_media_type", /\.sqlite3/, "treatments.sqlite3.txt");
    });

    await t.step("a multipart body without the field file is 400; no token is 401", async () => {
      const form = new FormData();
      form.append("other", new Blob([await Deno.readFile(base)]), "x.sqlite3");
      const res = await srv.fetch("/api/v1/treatments/import", { method: "POST", token: api.token, body: form });
      assert.equal(res.status, 400);
      assert.match((await res.json()).msg, /file/);
      const anon = await srv.fetch("/api/v1/treatments/import", { method: "POST", body: new FormData() });
      assert.equal(anon.status, 401);
      assert.deepEqual(await api.listTreatments(), before);
    });

    await t.step("missing table, missing column, a view in place of a table, a trigger", async () => {
      await failed(await fileWith(dir, "DROP TABLE channels"), /^channels: the table is missing\.$/);
      await failed(await fileWith(dir, "DROP TABLE treatments"), /^treatments: the table is missing\.$/);
      await failed(
        await fileWith(dir, "ALTER TABLE channels DROP COLUMN hold_time"),
        /^channels: column hold_time is missing\.$/,
      );
      await failed(
        await fileWith(dir, "ALTER TABLE treatments RENAME COLUMN use TO usage"),
        /^treatments: column use is missing\.$/,
      );
      await failed(
        await fileWith(dir, "ALTER TABLE phases RENAME TO phase_rows; CREATE VIEW phases AS SELECT * FROM phase_rows"),
        /^phases: is a view, not a table\.$/,
      );
      await failed(
        await fileWith(dir, "ALTER TABLE images RENAME TO image_rows; CREATE VIEW images AS SELECT * FROM image_rows"),
        /^images: is a view, not a table\.$/,
      );
      await failed(
        await fileWith(
          dir,
          "CREATE TABLE log (x); CREATE TRIGGER spy AFTER INSERT ON treatments BEGIN INSERT INTO log VALUES (1); END",
        ),
        /^treatments: the file has a trigger \(spy\)/,
      );
    });

    await t.step("numbers: negative, NULL (NaN), text, blob, Infinity", async () => {
      await failed(
        await fileWith(dir, "UPDATE channels SET current = -1 WHERE id = 5"),
        /^channels row 5: current must not be negative \(got -1\)\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE phases SET duration = -0.5 WHERE id = 7"),
        /^phases row 7: duration must not be negative \(got -0\.5\)\.$/,
      );
      await failed(
        await fileWith(dir, loosen("channels") + "UPDATE channels SET frequency = NULL WHERE id = 3"),
        /^channels row 3: frequency must be a number \(got NULL\)\.$/,
      );
      await failed(
        await fileWith(
          dir,
          loosen("channels"),
          (path) => runSql(path, "UPDATE channels SET rise_time = ? WHERE id = 4", NaN),
        ),
        /^channels row 4: rise_time must be a number \(got NULL\)\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE channels SET hold_time = 'long' WHERE id = 6"),
        /^channels row 6: hold_time must be a number \(got "long"\)\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE channels SET fall_time = x'0102' WHERE id = 2"),
        /^channels row 2: fall_time must be a number \(got a blob\)\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE phases SET duration = 9e999 WHERE id = 2"),
        /^phases row 2: duration must be a finite number \(got Infinity\)\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE channels SET current = -9e999 WHERE id = 1"),
        /^channels row 1: current must be a finite number \(got -Infinity\)\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE channels SET position = 9223372036854775807 WHERE id = 8"),
        /^channels row 8: position 9223372036854775807 is too large\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE phases SET position = -1 WHERE id = 3"),
        /^phases row 3: position must be a whole number not below 0/,
      );
    });

    await t.step("names: duplicate, duplicate up to surrounding spaces, blank; polarity blank", async () => {
      await failed(
        await fileWith(dir, "UPDATE treatments SET name = (SELECT name FROM treatments WHERE id = 1) WHERE id = 5"),
        /^treatments row 5: name "Treatment 00001 shoulder" is also used by treatments row 1\.$/,
      );
      await failed(
        await fileWith(
          dir,
          "UPDATE treatments SET name = '  ' || (SELECT name FROM treatments WHERE id = 2) || ' ' WHERE id = 6",
        ),
        /^treatments row 6: name "Treatment 00002 lower back" is also used by treatments row 2\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE treatments SET name = '   ' WHERE id = 3"),
        /^treatments row 3: name must not be blank\.$/,
      );
      await failed(
        await fileWith(dir, loosen("treatments") + "UPDATE treatments SET name = NULL WHERE id = 4"),
        /^treatments row 4: name must be text \(got NULL\)\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE treatments SET name = 'Knee' || char(10) || 'pain' WHERE id = 2"),
        /^treatments row 2: name must not contain control characters\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE treatments SET name = printf('%.201c', 'x') WHERE id = 1"),
        /^treatments row 1: name is longer than 200 characters\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE channels SET polarity = ' ' WHERE id = 9"),
        /^channels row 9: polarity must not be blank\.$/,
      );
    });

    await t.step("dangling treatment_id and phase_id; a position used twice", async () => {
      await failed(
        await fileWith(dir, "UPDATE phases SET treatment_id = 999 WHERE id = 4"),
        /^phases row 4: treatment_id 999 does not exist\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE channels SET phase_id = 4242 WHERE id = 11"),
        /^channels row 11: phase_id 4242 does not exist\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE images SET treatment_id = 77 WHERE id = 2"),
        /^images row 2: treatment_id 77 does not exist\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE phases SET position = 0 WHERE id = 2"),
        /^phases row 2: position 0 is used twice in treatment 1\.$/,
      );
    });

    await t.step("images: SVG and unknown types, data not matching the type, empty data", async () => {
      await failed(
        await fileWith(dir, "UPDATE images SET mime_type = 'image/svg+xml' WHERE id = 3"),
        /^images row 3: mime_type "image\/svg\+xml" is not one of image\/png, image\/jpeg, image\/gif, image\/webp\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE images SET mime_type = 'text/html' WHERE id = 1"),
        /^images row 1: mime_type "text\/html" is not one of/,
      );
      await failed(
        await fileWith(dir, "UPDATE images SET data = CAST('<script>alert(1)</script>' AS BLOB) WHERE id = 4"),
        /^images row 4: data is not image\/png data \(its signature does not match\)\.$/,
      );
      for (const type of ["constructor", "__proto__", "toString"]) {
        await failed(
          await fileWith(dir, `UPDATE images SET mime_type = '${type}' WHERE id = 2`),
          new RegExp(`^images row 2: mime_type "${type}" is not one of`),
        );
      }
      await failed(
        await fileWith(dir, "UPDATE images SET data = x'' WHERE id = 5"),
        /^images row 5: data must be a non-empty BLOB\.$/,
      );
      await failed(
        await fileWith(dir, "UPDATE images SET data = 'text' WHERE id = 6"),
        /^images row 6: data must be a non-empty BLOB\.$/,
      );
    });

    await t.step("caps: rows per file, phases per treatment, channels per phase", async () => {
      const series = (from: number, to: number) =>
        `WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})`;
      await failed(
        await fileWith(dir, `${series(1000, 501000)} INSERT INTO phases SELECT i, 1, i, 1.0 FROM n`),
        /^phases: the file holds 500019 rows; at most 500000 can be imported at once\.$/,
      );
      await failed(
        await fileWith(dir, `${series(1000, 1999)} INSERT INTO phases SELECT i, 1, i, 1.0 FROM n`),
        /^phases row \d+: treatment 1 has more than 1000 phases\.$/,
      );
      await failed(
        await fileWith(dir, `${series(1000, 1063)} INSERT INTO channels SELECT i, 1, i, 1, 1, 'p', 1, 1, 1 FROM n`),
        /^channels row \d+: phase 1 has more than 64 channels\.$/,
      );
    });

    await t.step("after all refusals the images are still served unchanged", async () => {
      const after = await Promise.all(before.flatMap((tr) => tr.images).map((id) => api.treatmentImage(id)));
      assert.deepEqual(
        await Promise.all(after.map((b) => b.bytes())),
        await Promise.all(imagesBefore.map((b) => b.bytes())),
      );
      assert.doesNotMatch(srv.output(), /ERROR/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an import over MAX_IMPORT_BYTES is 413 and changes nothing", async () => {
  await using srv = await startServer({ env: { MAX_IMPORT_BYTES: "40000" } });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "import-test-" });
  try {
    const small = `${dir}/small.sqlite3`, big = `${dir}/big.sqlite3`;
    makeImportDb(small, generateTreatments(1, { phases: 1, channels: 1 }));
    makeImportDb(big, generateTreatments(200, { phases: 4, channels: 4, namePrefix: "Big" }));
    assert.ok((await Deno.stat(small)).size <= 40000);
    assert.ok((await Deno.stat(big)).size > 40000);
    await api.importTreatments(await fileSource(small));
    const before = await api.listTreatments();
    const res = await upload(srv, api.token, await Deno.readFile(big), "big.sqlite3");
    assert.equal(res.status, 413);
    assert.equal(res.body.error, "too_large");
    assert.match(res.body.msg, /MAX_IMPORT_BYTES/);
    assert.deepEqual(await api.listTreatments(), before);
    assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
