/**
 * PostgreSQL's hourly check-in counts (migration 10) are pruned: the empty hours older than the longest `seen` window
 * plus a margin go; hours that still count devices, recent hours and every count a view or the overview answers stay.
 * Once through the store, once through the real server (which prunes at start).
 */
import { withClock } from "../../testing/clock.ts";
import assert from "node:assert/strict";
import { type OpenStores, openStores } from "../../server/db/mod.ts";
import { SEEN_PRUNE_AFTER_MS } from "../../server/db/rules/device_view.ts";
import { pgQuery, testDatabaseUrl } from "../../testing/postgres.ts";
import { startServer } from "../../testing/server.ts";

const PRODUCT = "prune";
const HOUR = 3600_000;
const DAY = 24 * HOUR;

const hourKey = (msAgo: number) => `h:${new Date(Date.now() - msAgo).toISOString().slice(0, 13)}`;

/** The `seen` rows as key -> n. */
async function seenRows(url: string): Promise<Map<string, number>> {
  const rows = await pgQuery(url, "SELECT key, n FROM device_group_counts WHERE dim = 'seen' ORDER BY key");
  return new Map(rows.map((r) => [r.key as string, Number(r.n)]));
}

/** What every reader of the seen counts answers: the overview's and the seen filters' totals. */
async function seenCounts(stores: OpenStores) {
  const total = async (seen: "24h" | "7d" | "stale" | "never") =>
    (await stores.devices.view({ filter: { seen }, sort: "deviceId", order: "asc" }, 0, 10, PRODUCT)).total;
  return {
    overview: (await stores.devices.overview(PRODUCT)).devices,
    seen24h: await total("24h"),
    seen7d: await total("7d"),
    stale: await total("stale"),
    never: await total("never"),
  };
}

/**
 * A fleet whose check-ins leave rows of every kind: devices that last checked in 30 and 9 days ago (old hours that
 * count them), devices that moved on from 40 and 20 days ago and from 2 days ago (empty hours: old and recent), one
 * that never checked in, and a year-old backlog of empty hours written behind the store's back.
 */
async function seedFleet(stores: OpenStores, url: string) {
  await stores.deviceTypes.ensure(PRODUCT);
  // A check-in that changes nothing but last-seen leaves it to the next batch: written here at once.
  const checkin = async (id: string) => {
    await stores.deviceApi.checkin(id, { app: "1.0", os: "os", channels: [] }, PRODUCT);
    await stores.deviceApi.flushSeen();
  };
  for (const [id, ago] of [["old-30", 30 * DAY], ["old-9", 9 * DAY], ["recent", 3 * HOUR]] as const) {
    await withClock(-ago, () => checkin(id));
  }
  for (const [id, ago] of [["moved-40", 40 * DAY], ["moved-20", 20 * DAY], ["moved-2", 2 * DAY]] as const) {
    await withClock(-ago, () => checkin(id));
    await checkin(id);
  }
  await stores.devices.preauthorize("never");
  const backlog = Array.from({ length: 365 * 24 }, (_, h) => `('seen', '${hourKey(10 * DAY + h * HOUR)}', 0)`);
  await pgQuery(
    url,
    `INSERT INTO device_group_counts (dim, key, n) VALUES ${backlog.join(", ")} ON CONFLICT (dim, key) DO NOTHING`,
  );
}

Deno.test("PostgreSQL: empty hours of check-ins older than 8 days are pruned; every count stays", async (t) => {
  const url = await testDatabaseUrl();
  const stores = await openStores({ engine: "postgres", url, poolSize: 2 });
  try {
    await seedFleet(stores, url);
    const before = await seenRows(url);
    const counts = await seenCounts(stores);
    assert.deepEqual(counts.overview, { total: 7, seen24h: 4, seen7d: 4, stale: 2, never: 1, pending: 0 });
    const cutoff = hourKey(SEEN_PRUNE_AFTER_MS);
    const doomed = [...before].filter(([k, n]) => k.startsWith("h:") && k < cutoff && n === 0).map(([k]) => k);
    assert.ok(doomed.length >= 365 * 24 - 48, `${doomed.length} empty old hours`);
    for (const ago of [40 * DAY, 20 * DAY]) assert.equal(before.get(hourKey(ago)), 0, "moved on: empty, old");

    await t.step("the empty old hours go; hours counting devices, recent hours and 'none' stay", async () => {
      assert.equal(await stores.devices.pruneCounts(), doomed.length);
      const after = await seenRows(url);
      assert.deepEqual([...after.keys()], [...before.keys()].filter((k) => !doomed.includes(k)));
      for (const [k, n] of after) assert.equal(n, before.get(k), k);
      assert.equal(after.get(hourKey(30 * DAY)), 1, "an old hour that counts a device stays");
      assert.equal(after.get(hourKey(9 * DAY)), 1);
      assert.equal(after.get(hourKey(2 * DAY)), 0, "an empty hour within the window stays");
      assert.equal(after.get("none"), 1);
      assert.deepEqual(await seenCounts(stores), counts);
      assert.equal(await stores.devices.pruneCounts(), 0, "nothing left to prune");
    });

    await t.step("a device checking in at a pruned hour makes its row again (the trigger's upsert)", async () => {
      await withClock(
        -20 * DAY,
        () => stores.deviceApi.checkin("late", { app: "1.0", os: "os", channels: [] }, PRODUCT),
      );
      assert.equal((await seenRows(url)).get(hourKey(20 * DAY)), 1);
      await stores.deviceApi.checkin("late", { app: "1.0", os: "os", channels: [] }, PRODUCT);
      await stores.deviceApi.flushSeen();
      assert.equal((await seenRows(url)).get(hourKey(20 * DAY)), 0);
      const now = await seenCounts(stores);
      assert.deepEqual(now.overview, { ...counts.overview, total: 8, seen24h: 5, seen7d: 5 });
      assert.deepEqual([now.seen24h, now.seen7d, now.never], [5, 5, 1]);
    });
  } finally {
    await stores.close();
  }
});

Deno.test("PostgreSQL: the server prunes the empty old hours at start, and its views answer as before", async () => {
  const url = await testDatabaseUrl();
  const stores = await openStores({ engine: "postgres", url, poolSize: 2 });
  let counts;
  try {
    await seedFleet(stores, url);
    counts = await seenCounts(stores);
  } finally {
    await stores.close();
  }
  const before = await seenRows(url);
  await using srv = await startServer({ env: { DATABASE_URL: url, PRODUCT } });
  const after = await seenRows(url);
  const cutoff = hourKey(SEEN_PRUNE_AFTER_MS);
  const doomed = [...before].filter(([k, n]) => k.startsWith("h:") && k < cutoff && n === 0).length;
  assert.equal(before.size - after.size, doomed);
  assert.ok([...after].every(([k, n]) => !(k.startsWith("h:") && k < cutoff && n === 0)));
  assert.match(srv.output(), new RegExp(`Pruned ${doomed} empty hourly check-in count\\(s\\) older than 8 days\\.`));
  const api = await srv.login();
  assert.deepEqual((await api.overview()).devices, counts.overview);
  const seen = await api.listDevices({ seen: "7d" });
  assert.deepEqual([seen.total, seen.exact], [counts.seen7d, true]);
});
