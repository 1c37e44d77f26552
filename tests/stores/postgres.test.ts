import assert from "node:assert/strict";
import { connect } from "../../server/db/postgres/open.ts";
import { NewerSchemaError, type OpenStores, openStores, StoreUnavailableError } from "../../server/db/mod.ts";
import { MIGRATIONS } from "../../server/db/migrations/postgres.ts";
import { pgQuery, sharedPostgres, startPostgres, testDatabaseUrl } from "../../testing/postgres.ts";
import { storeConformance } from "./conformance.ts";
import { checkSeenUpgrade, SEEN_INFO, SEEN_TYPE, seenUpgradeRows } from "./seen_upgrade.ts";
import { addFirmware } from "./fixtures.ts";
import { atInstant } from "../../server/db/clock.ts";

const BY = { email: "op@example.com" };

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

for (
  const [held, table] of [
    ["the narrow row (the hour stays)", "device_seen"],
    ["the devices row of a moving hour", "devices"],
  ] as const
) {
  Deno.test(`PostgreSQL stores: a last-seen batch skips ${held} another transaction holds, and writes it in the next`, async () => {
    const url = await testDatabaseUrl();
    const stores = await open(url);
    const holder = connect({ url, poolSize: 1 });
    try {
      const info = { app: "1", os: "1", channels: [] };
      for (const id of ["held", "free"]) await stores.deviceApi.checkin(id, info, "p");
      if (table === "devices") {
        // Last seen in an earlier hour: the batch moves the devices row's hour too.
        await pgQuery(url, "UPDATE device_seen SET last_logged_in = '2020-01-01T00:00:00.000Z'");
        await pgQuery(url, "UPDATE devices SET seen_hour = '2020-01-01T00'");
      }
      await new Promise((r) => setTimeout(r, 5));
      const seen = async () =>
        Object.fromEntries(
          (await pgQuery(
            url,
            "SELECT s.device_id, s.last_logged_in, d.seen_hour FROM device_seen s JOIN devices d USING (device_id)",
          )).map((r) => [r.device_id, { at: r.last_logged_in as string, hour: r.seen_hour as string }]),
        );
      const before = await seen();
      // Quiet check-ins: their times are noted for the batch.
      for (const id of ["held", "free"]) await stores.deviceApi.checkin(id, info, "p");

      let release!: () => void;
      const released = new Promise<void>((r) => release = r);
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => locked = r);
      const hold = holder.begin(async (tx) => {
        await tx.unsafe(`SELECT 1 FROM ${table} WHERE device_id = 'held' FOR UPDATE`);
        locked();
        await released;
      });
      await isLocked;
      // The batch does not wait for the held row (it would wait until the release below, and a waiting batch holding
      // other devices' rows could be in a lock cycle): it writes the free device and keeps the held one.
      const flushed = await Promise.race([
        stores.deviceApi.flushSeen().then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 4_000)),
      ]);
      const during = await seen();
      release();
      await hold;
      assert.ok(flushed, "the batch did not wait for the held row");
      assert.ok(during.free.at > before.free.at, "the free device's time is written");
      assert.equal(during.free.hour, during.free.at.slice(0, 13), "its hour with it");
      assert.deepEqual(during.held, before.held, "the held device's time is left for the next batch");
      await stores.deviceApi.flushSeen();
      const after = (await seen()).held;
      assert.ok(after.at > before.held.at, "the next batch writes it");
      assert.equal(after.hour, after.at.slice(0, 13));
    } finally {
      await holder.end();
      await stores.close();
    }
  });
}

Deno.test("PostgreSQL stores: two device writes take the kept counts' rows in one order (no deadlock)", async () => {
  const url = await testDatabaseUrl();
  await (await open(url)).close();
  const [a, b] = [0, 1].map(() => connect({ url, poolSize: 1 }));
  try {
    await a`INSERT INTO devices (device_id, created_at, updated_at, version_info) VALUES ('p', 'x', 'x', '{"app":"1"}')`;
    let inserted: Promise<unknown> = Promise.resolve();
    // A holds the counter and the app counts of its first statement; B's new device waits for A; A's second statement
    // moves the count B's device would add to ('app' none). Taking the counts first, B would hold that row and wait
    // for the counter A holds: a deadlock (40P01 after deadlock_timeout). The counter first, B holds nothing yet.
    await a.begin(async (tx) => {
      await tx`UPDATE devices SET version_info = '{"app":"2"}' WHERE device_id = 'p'`;
      inserted = b`INSERT INTO devices (device_id, created_at, updated_at) VALUES ('n', 'x', 'x')`.execute();
      inserted.catch(() => {}); // awaited below
      for (let t = 0;; t++) {
        const [{ waiting }] = await pgQuery(
          url,
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if (Number(waiting) > 0) break;
        assert.ok(t < 200, "B waits for A");
        await new Promise((r) => setTimeout(r, 10));
      }
      await tx`UPDATE devices SET version_info = NULL WHERE device_id = 'p'`;
    });
    await inserted;
    const counts = await pgQuery(url, "SELECT key, n FROM device_group_counts WHERE dim = 'app' AND n <> 0 ORDER BY 1");
    assert.deepEqual(counts.map((r) => [r.key, Number(r.n)]), [["none", 2]]);
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
});

Deno.test("PostgreSQL stores: rollouts of an earlier release keep their order; one created later is the newest", async () => {
  const url = await testDatabaseUrl();
  // The release before rollouts' seq: migrations 1..16, rollouts ranked by created_at, then id.
  await pgQuery(
    url,
    "CREATE TABLE schema_version (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), version INTEGER NOT NULL)",
  );
  for (const [v, migration] of MIGRATIONS.slice(0, 16).entries()) {
    await pgQuery(
      url,
      `${migration}; INSERT INTO schema_version (version) VALUES (${v + 1})
      ON CONFLICT (one) DO UPDATE SET version = excluded.version`,
    );
  }
  const [t0, t1, t2] = ["2025-01-01T00:00:00.000Z", "2025-01-02T00:00:00.000Z", "2025-01-03T00:00:00.000Z"];
  const rows = [["r-d", t2], ["r-a", t1], ["r-c", t0], ["r-b", t1]].map(([id, at]) =>
    `('${id}', '${id}', 'fw', '[100]', 20, true, 'draft', '${at}', '${at}', 'op@example.com')`
  );
  await pgQuery(
    url,
    `INSERT INTO rollouts (id, name, firmware_id, stages, failure_threshold, auto_advance, state, created_at, updated_at,
       created_by) VALUES ${rows.join(", ")}`,
  );
  const stores = await open(url);
  try {
    assert.deepEqual((await stores.rollouts.list()).map((r) => r._id), ["r-d", "r-b", "r-a", "r-c"]);
    const fw = await addFirmware(stores, "later.xz");
    // Created last on a replica whose clock is behind: still the newest.
    const later = await atInstant(
      t0,
      () => stores.rollouts.create({ name: "later", firmwareId: fw._id, productTypeId: null, stages: [100] }, BY),
    );
    assert.deepEqual((await stores.rollouts.list()).map((r) => r._id), [later._id, "r-d", "r-b", "r-a", "r-c"]);
  } finally {
    await stores.close();
  }
});

Deno.test("PostgreSQL stores: last-seen times of the release before device_seen move there, views and counts kept", async () => {
  const url = await testDatabaseUrl();
  // The release before device_seen: migrations 1..17.
  await pgQuery(
    url,
    "CREATE TABLE schema_version (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), version INTEGER NOT NULL)",
  );
  for (const [v, migration] of MIGRATIONS.slice(0, 17).entries()) {
    await pgQuery(
      url,
      `${migration}; INSERT INTO schema_version (version) VALUES (${v + 1})
      ON CONFLICT (one) DO UPDATE SET version = excluded.version`,
    );
  }
  const t = "2025-01-01T00:00:00.000Z";
  await pgQuery(
    url,
    `INSERT INTO product_types (id, name, name_key, created_at, updated_at) VALUES ('${SEEN_TYPE}', 'Seen', 'seen', '${t}', '${t}')`,
  );
  const rows = seenUpgradeRows(Date.now());
  const values = rows.map(([id, pt, at]) =>
    `('${id}', ${pt === null ? "NULL" : `'${pt}'`}, '${t}', '${t}', ${
      at === null ? "NULL" : `'${at}'`
    }, '${SEEN_INFO}')`
  );
  await pgQuery(
    url,
    `INSERT INTO devices (device_id, product_type_id, created_at, updated_at, last_logged_in, version_info)
     VALUES ${values.join(", ")}`,
  );
  const hours = async () =>
    (await pgQuery(url, "SELECT key, n FROM device_group_counts WHERE dim = 'seen' AND n <> 0 ORDER BY 1")).map((
      r,
    ) => [r.key, Number(r.n)]);
  const kept = await hours();
  const stores = await open(url);
  try {
    assert.deepEqual(await hours(), kept, "the hourly counts are the same hours");
    await checkSeenUpgrade(stores, rows);
    const now = await pgQuery(
      url,
      "SELECT count(*) AS n FROM devices d JOIN device_seen s USING (device_id) WHERE d.seen_hour IS DISTINCT FROM substr(s.last_logged_in, 1, 13)",
    );
    assert.equal(Number(now[0].n), 0, "every device's hour is its time's");
  } finally {
    await stores.close();
  }
});
