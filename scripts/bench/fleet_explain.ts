/**
 * `deno run -A scripts/bench/fleet_explain.ts [devices]`: the fleet views that read last seen (docs/DECISIONS.md,
 * "Last-seen writes of a million-device fleet: the exact time beside the row") on PostgreSQL at 1,000,000 devices (the
 * varied fleet of scripts/bench/fleet.ts, seedFleetPostgres): p50/p99 of a page 0-39 of 25 at the store, then the plan
 * of page 39 of each as PostgreSQL ran it (auto_explain, EXPLAIN ANALYZE's figures), printed.
 */
import { type OpenStores, openStores } from "../../server/db/mod.ts";
import type { DeviceView } from "../../server/db/rules/device_view.ts";
import { pgQuery, startPostgres } from "../../testing/postgres.ts";
import { seedFleetPostgres } from "../../testing/fleet_bench.ts";
import { measure, refsOf } from "./fleet.ts";

const PRODUCT = "bench";
const n = Number(Deno.args[0] ?? 1_000_000);
const runs = Number(Deno.env.get("FLEET_RUNS") ?? 100);
const say = (s: string) => console.error(`[explain] ${s}`);

await using pg = await startPostgres();
const url = await pg.createDatabase();
let stores: OpenStores = await openStores({ engine: "postgres", url, poolSize: 4 });
const refs = await refsOf(stores);
await stores.close();
say(`seeding ${n} devices`);
const seeded = Date.now();
await seedFleetPostgres(url, n, refs);
say(`seeded in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);
stores = await openStores({ engine: "postgres", url, poolSize: 4 });
await stores.devices.syncFirmwareKeys(PRODUCT);
const [pt] = refs.productTypeIds.slice(1);
const views: [string, DeviceView][] = [
  ["product type + seen 24h, sorted by updated desc", {
    filter: { productTypeId: pt, seen: "24h" },
    sort: "updatedAt",
    order: "desc",
  }],
  ["seen 24h, sorted by created", { filter: { seen: "24h" }, sort: "createdAt", order: "asc" }],
  ["product type, sorted by last seen desc", { filter: { productTypeId: pt }, sort: "lastLoggedIn", order: "desc" }],
  ["product type + stale, sorted by app", { filter: { productTypeId: pt, seen: "stale" }, sort: "app", order: "asc" }],
  ["seen 7d, sorted by last seen desc", { filter: { seen: "7d" }, sort: "lastLoggedIn", order: "desc" }],
  ["no filter, sorted by last seen desc", { filter: {}, sort: "lastLoggedIn", order: "desc" }],
  ["seen 24h, sorted by device id", { filter: { seen: "24h" }, sort: "deviceId", order: "asc" }],
  ["firmware in effect (the default) + seen 7d, sorted by app", {
    filter: { firmware: "default", seen: "7d" },
    sort: "app",
    order: "asc",
  }],
  ["seen 7d, by product type", { filter: { seen: "7d" }, sort: "productType", order: "asc" }],
  ["app + admission, sorted by last seen (device_seen joined to devices)", {
    filter: { app: "2.4.1", admission: "accepted" },
    sort: "lastLoggedIn",
    order: "asc",
  }],
];
let seed = 1;
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
console.log(`| view at ${n} devices (PostgreSQL), page 0-39 of 25 | p50 ms | p99 ms |`);
console.log("|---|---|---|");
for (const [what, view] of views) {
  const r = await measure(runs, () => stores.devices.view(view, Math.floor(rand() * 40), 25, PRODUCT));
  console.log(`| ${what} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`);
}
const overview = await measure(runs, () => stores.devices.overview(PRODUCT));
console.log(`| GET overview (every count) | ${overview.p50.toFixed(2)} | ${overview.p99.toFixed(2)} |`);
await stores.close();

// The plans: auto_explain in every new session of this database, the views' page 39 read once each.
const db = new URL(url).pathname.slice(1);
await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET session_preload_libraries = 'auto_explain'`);
await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET auto_explain.log_min_duration = 0`);
await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET auto_explain.log_analyze = on`);
await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET auto_explain.log_buffers = on`);
const log = `${pg.dataDir}/../log`;
stores = await openStores({ engine: "postgres", url, poolSize: 1 });
for (const [what, view] of views) {
  const from = (await Deno.readTextFile(log)).length;
  await stores.devices.view(view, 39, 25, PRODUCT);
  const plans = (await Deno.readTextFile(log)).slice(from).split(/\n(?=\S)/)
    .filter((p) => /Query Text: SELECT [ds]\.device_id|count\(\*\)/.test(p));
  console.log(`\n### ${what}, page 39\n${plans.join("\n")}`);
}
await stores.close();
