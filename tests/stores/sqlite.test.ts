import assert from "node:assert/strict";
import { join } from "node:path";
import { NewerSchemaError, type OpenStores, openStores } from "../../server/db/mod.ts";
import { MIGRATIONS } from "../../server/db/sqlite/schema.ts";
import { runSql, setUserVersion } from "../../testing/sqlite_file.ts";
import { storeConformance } from "./conformance.ts";

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
