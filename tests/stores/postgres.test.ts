import assert from "node:assert/strict";
import { NewerSchemaError, type OpenStores, openStores, StoreUnavailableError } from "../../server/db/mod.ts";
import { MIGRATIONS } from "../../server/db/postgres/schema.ts";
import { pgQuery, sharedPostgres, startPostgres, testDatabaseUrl } from "../../testing/postgres.ts";
import { storeConformance } from "./conformance.ts";

const urls = new WeakMap<OpenStores, string>();
const open = (url: string) => openStores({ engine: "postgres", url, poolSize: 4 });

async function openTemp(): Promise<OpenStores> {
  const url = await testDatabaseUrl();
  const stores = await open(url);
  urls.set(stores, url);
  return stores;
}

storeConformance("PostgreSQL", {
  open: openTemp,
  another: (stores) => open(urls.get(stores)!),
  exec: async (stores, text) => void await pgQuery(urls.get(stores)!, text),
});

Deno.test("PostgreSQL stores: a database from a newer release is refused and left untouched", async () => {
  const url = await testDatabaseUrl();
  await (await open(url)).close();
  await pgQuery(url, `UPDATE schema_version SET version = ${MIGRATIONS.length + 1}`);
  const dump = async () =>
    JSON.stringify(
      await pgQuery(
        url,
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`,
      ),
    ) + JSON.stringify(await pgQuery(url, "SELECT * FROM schema_version"));
  const before = await dump();
  await assert.rejects(open(url), NewerSchemaError);
  assert.equal(await dump(), before);
});

Deno.test("PostgreSQL stores: several processes migrating one empty database at once migrate it once", async () => {
  const url = await testDatabaseUrl();
  const all = await Promise.all([open(url), open(url), open(url)]);
  try {
    await Promise.all(all.map((s) => s.deviceTypes.ensure("p")));
    assert.equal((await all[0].deviceTypes.list()).length, 1);
  } finally {
    for (const s of all) await s.close();
  }
});

Deno.test("PostgreSQL stores: the shared secret is made once", async () => {
  const url = await testDatabaseUrl();
  const [a, b] = await Promise.all([open(url), open(url)]);
  try {
    const [x, y] = await Promise.all([a.system.sharedSecret("x".repeat(40)), b.system.sharedSecret("y".repeat(40))]);
    assert.equal(x, y);
    assert.equal(await a.system.sharedSecret("z".repeat(40)), x);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("PostgreSQL stores: unreachable is StoreUnavailableError within 2 s, and they recover", async () => {
  await sharedPostgres(); // the shared one stays up; this test stops a cluster of its own
  await using pg = await startPostgres();
  const stores = await open(await pg.createDatabase());
  try {
    await stores.system.ping();
    await pg.stop();
    const firstChunk = () => stores.treatments.listJsonChunks()[Symbol.asyncIterator]().next();
    const calls = [
      () => stores.system.ping(),
      () => stores.devices.list(0, 10),
      () => stores.operators.count(),
      () => stores.deviceApi.checkin("d", { app: null, os: "os", channels: [] }, "p"),
      firstChunk,
    ];
    for (const call of calls) {
      const started = performance.now();
      await assert.rejects(call(), StoreUnavailableError);
      assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
    }
    await pg.start();
    await stores.system.ping();
    assert.equal((await stores.devices.list(0, 10)).total, 0);
  } finally {
    await stores.close();
  }
});
