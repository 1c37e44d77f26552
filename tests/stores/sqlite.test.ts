import assert from "node:assert/strict";
import { join } from "node:path";
import { NewerSchemaError, type OpenStores, openStores } from "../../server/db/mod.ts";
import { MIGRATIONS } from "../../server/db/migrations/sqlite.ts";
import { queryValue, runSql, setUserVersion } from "../../testing/sqlite_file.ts";
import { listTreatments } from "./fixtures.ts";
import { storeConformance } from "./conformance.ts";
import { checkSeenUpgrade, SEEN_INFO, SEEN_TYPE, seenUpgradeRows } from "./seen_upgrade.ts";

const files = new WeakMap<OpenStores, string>();

async function openTemp(): Promise<OpenStores> {
  const dir = await Deno.makeTempDir({ prefix: "stores-sqlite-" });
  const file = join(dir, "console.sqlite3");
  const stores = await openStores({ engine: "sqlite", file });
  const opened: OpenStores = {
    ...stores,
    close: async () => {
      await stores.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
  files.set(opened, file);
  return opened;
}

storeConformance("SQLite", {
  open: openTemp,
  another: (stores) => openStores({ engine: "sqlite", file: files.get(stores)! }),
  exec: (stores, text) => Promise.resolve(runSql(files.get(stores)!, text)),
});

Deno.test("SQLite stores: a database from a newer release is refused and left untouched", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stores-sqlite-" });
  try {
    const file = join(dir, "console.sqlite3");
    await (await openStores({ engine: "sqlite", file })).close();
    setUserVersion(file, MIGRATIONS.length + 1);
    const before = await Deno.readFile(file);
    await assert.rejects(openStores({ engine: "sqlite", file }), NewerSchemaError);
    assert.deepEqual(await Deno.readFile(file), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQLite stores: a database of the previous release gets the change counter, devices kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stores-sqlite-" });
  try {
    const file = join(dir, "console.sqlite3");
    for (const [v, migration] of MIGRATIONS.slice(0, 2).entries()) {
      runSql(file, `${migration}; PRAGMA user_version = ${v + 1};`);
    }
    const t = "2025-01-01T00:00:00.000Z";
    runSql(file, "INSERT INTO devices (device_id, created_at, updated_at) VALUES (?, ?, ?)", "old", t, t);
    const stores = await openStores({ engine: "sqlite", file });
    try {
      assert.equal((await stores.devices.list(0, 10)).total, 1);
      const version = await stores.devices.version();
      await stores.devices.remove("old");
      assert.notEqual(await stores.devices.version(), version);
    } finally {
      await stores.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQLite stores: a database of a release without revisions gets them, rows and etags kept apart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stores-sqlite-" });
  try {
    const file = join(dir, "console.sqlite3");
    for (const [v, migration] of MIGRATIONS.slice(0, 3).entries()) {
      runSql(file, `${migration}; PRAGMA user_version = ${v + 1};`);
    }
    const t = "2025-01-01T00:00:00.000Z";
    runSql(file, "INSERT INTO devices (device_id, created_at, updated_at) VALUES (?, ?, ?)", "old", t, t);
    runSql(
      file,
      "INSERT INTO product_types (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
      "pt",
      "Old",
      "old",
      t,
      t,
    );
    const stores = await openStores({ engine: "sqlite", file });
    try {
      const old = (await stores.devices.get("old"))!;
      const pt = (await stores.productTypes.get("pt"))!;
      assert.equal(old.etag, '"0"', "rows of the earlier release start at revision 0");
      assert.equal(pt.etag, '"0"');
      const patched = await stores.devices.patch("old", { productTypeId: "pt" }, [old.etag]);
      await stores.deviceApi.checkin("new", { app: null, os: null, channels: [] }, "x");
      const fresh = (await stores.devices.get("new"))!;
      assert.equal(new Set([old.etag, patched.etag, fresh.etag]).size, 3);
      assert.equal((await stores.productTypes.update("pt", { name: "Old", modules: [] }, [pt.etag])).name, "Old");
    } finally {
      await stores.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQLite stores: treatments of a database of the previous release keep their phases and images", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stores-sqlite-" });
  try {
    const file = join(dir, "console.sqlite3");
    for (const [v, migration] of MIGRATIONS.slice(0, 4).entries()) {
      runSql(file, `${migration}; PRAGMA user_version = ${v + 1};`);
    }
    const t = "2025-01-01T00:00:00.000Z";
    const phases = '[{"duration":30,"channels":[]}]';
    runSql(
      file,
      `INSERT INTO treatments (id, name, category, use, phases, image_ids, created_at, updated_at)
       VALUES ('t1', 'Knee', NULL, 'daily', '${phases}', '["i1"]', '${t}', '${t}')`,
    );
    runSql(file, "INSERT INTO treatment_images VALUES ('i1', 't1', 0, 'image/png', ?)", new Uint8Array([0x89, 1, 2]));
    const stores = await openStores({ engine: "sqlite", file });
    try {
      const expected = {
        _id: "t1",
        name: "Knee",
        category: null,
        use: "daily",
        createdAt: t,
        updatedAt: t,
        images: ["i1"],
        phases: JSON.parse(phases),
      };
      assert.deepEqual(await listTreatments(stores), [expected]);
      assert.deepEqual(await stores.treatments.get("t1"), expected);
      assert.deepEqual(await stores.treatments.image("i1"), {
        mimeType: "image/png",
        data: new Uint8Array([0x89, 1, 2]),
      });
      assert.equal(await stores.treatments.sweep(), 0);
    } finally {
      await stores.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQLite stores: the streamed list is byte for byte the one-query list of before", async () => {
  const stores = await openTemp();
  try {
    const file = files.get(stores)!;
    const phases = (i: number) =>
      JSON.stringify(Array.from({ length: 12 }, (_, k) => ({
        duration: i + k / 3,
        channels: [{
          current: 0.1 * k,
          frequency: 50,
          polarity: 'bi"phasic',
          riseTime: 1e21,
          holdTime: 2,
          fallTime: 3,
        }],
      })));
    await stores.treatments.import(Array.from({ length: 400 }, (_, i) => ({
      name: `${["Zeta", "alpha", "Émile", "beta"][i % 4]} ${i}`,
      category: i % 3 ? "Pain \\ relief" : null,
      use: i % 5 ? "Twice\na day\t\u2028" : null,
      phasesJson: phases(i),
      images: [],
    })));
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    for await (const chunk of stores.treatments.listJsonChunks()) chunks.push(chunk);
    assert.ok(chunks.length > 1);
    const streamed = new Uint8Array(await new Blob(chunks).arrayBuffer());
    // The list as it was made before it was streamed: one query, the JSON put together by SQLite.
    const before = queryValue(
      file,
      `SELECT CAST('[' || coalesce(group_concat('{"_id":' || json_quote(t.id) || ',"name":' || json_quote(t.name)
        || ',"category":' || json_quote(t.category) || ',"use":' || json_quote(t.use)
        || ',"createdAt":' || json_quote(t.created_at) || ',"updatedAt":' || json_quote(t.updated_at)
        || ',"images":' || t.image_ids || ',"phases":' || p.json || '}', ','
        ORDER BY t.name COLLATE NOCASE, t.name), '') || ']' AS BLOB)
       FROM treatments t JOIN treatment_phases p ON p.id = t.phases_id`,
    ) as Uint8Array;
    assert.equal(streamed.byteLength, before.byteLength);
    assert.ok(streamed.every((b, i) => b === before[i]), "the bytes differ");
  } finally {
    await stores.close();
  }
});

Deno.test("SQLite stores: content an interrupted import wrote ahead is swept, published content is kept", async () => {
  const stores = await openTemp();
  try {
    const file = files.get(stores)!;
    await stores.treatments.import([{
      name: "Kept",
      category: null,
      use: null,
      phasesJson: "[]",
      images: [{ mimeType: "image/png", data: new Uint8Array([0x89, 0x50]) }],
    }]);
    const before = await listTreatments(stores);
    runSql(file, "INSERT INTO treatment_phases (json) VALUES ('[]'), ('[]')");
    runSql(file, "INSERT INTO treatment_image_data (data) VALUES (x'01')");
    assert.equal(await stores.treatments.sweep(), 3);
    assert.equal(await stores.treatments.sweep(), 0);
    assert.deepEqual(await listTreatments(stores), before);
    assert.deepEqual((await stores.treatments.image(before[0].images[0]))?.data, new Uint8Array([0x89, 0x50]));
  } finally {
    await stores.close();
  }
});

Deno.test("SQLite stores: several processes opening one new file at once migrate it once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stores-sqlite-" });
  try {
    const file = join(dir, "console.sqlite3");
    const script = `import { openStores } from "${new URL("../../server/db/mod.ts", import.meta.url).href}";
      const s = await openStores({ engine: "sqlite", file: ${JSON.stringify(file)} });
      await s.deviceTypes.ensure("p");
      await s.close();`;
    const runs = await Promise.all(
      Array.from(
        { length: 4 },
        () => new Deno.Command(Deno.execPath(), { args: ["eval", script], stdout: "piped", stderr: "piped" }).output(),
      ),
    );
    for (const r of runs) assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
    const stores = await openStores({ engine: "sqlite", file });
    try {
      assert.equal((await stores.deviceTypes.list()).length, 1);
    } finally {
      await stores.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQLite stores: last-seen times of the release before device_seen move there, views and counts kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stores-sqlite-" });
  try {
    const file = join(dir, "console.sqlite3");
    for (const [v, migration] of MIGRATIONS.slice(0, 22).entries()) {
      runSql(file, `${migration}; PRAGMA user_version = ${v + 1};`);
    }
    const t = "2025-01-01T00:00:00.000Z";
    runSql(
      file,
      "INSERT INTO product_types (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
      SEEN_TYPE,
      "Seen",
      "seen",
      t,
      t,
    );
    const rows = seenUpgradeRows(Date.now());
    for (const [id, pt, at] of rows) {
      runSql(
        file,
        `INSERT INTO devices (device_id, product_type_id, created_at, updated_at, last_logged_in, version_info)
         VALUES (?, ?, ?, ?, ?, ?)`,
        id,
        pt,
        t,
        t,
        at,
        SEEN_INFO,
      );
    }
    const stores = await openStores({ engine: "sqlite", file });
    try {
      await checkSeenUpgrade(stores, rows);
    } finally {
      await stores.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
