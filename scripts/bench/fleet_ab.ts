/**
 * Builds compared on the fleet views of `deno task bench --fleet` (PostgreSQL), in one process on one seeded database:
 *   deno run -A scripts/bench/fleet_ab.ts <tree> <tree>...
 * A tree is a checkout (`.`, or e.g. `git archive <commit> | tar -x -C /tmp/before`); each opens its own stores (pool
 * 4) on the database seeded once as the bench seeds it (seedFleetPostgres, FLEET_DEVICES, default 100,000). Each view
 * (the bench's list, scripts/bench/fleet.ts; FLEET_ONLY=<text> keeps those whose name holds it) runs AB_BLOCKS blocks
 * of AB_RUNS random pages 0-39 of 25 per build, the builds alternating block by block (the order reversed every other
 * block) on the same pages, so that the machine's load falls on each alike. Prints p50 / p99 per view and build, and
 * the 1-minute load. AB_ROLLOUT=1: the rollout's views instead (a rollout of fw-b to all devices started, 10 %).
 * AB_PAGES=1: the median by page (tens) and the slowest runs' pages, on stderr. AB_SQL=<statements>: run on the database after the seed. AB_EXPLAIN=<ms>: auto_explain (ANALYZE, BUFFERS) of every statement over <ms> in the measured runs, printed after.
 */
import type { OpenStores as Stores } from "../../server/db/mod.ts";
import type { DeviceView } from "../../server/db/rules/device_view.ts";
import { pgQuery, startPostgres } from "../../testing/postgres.ts";
import { type FleetRefs, seedFleetPostgres } from "../../testing/fleet_bench.ts";
import { fleetRolloutViews, fleetViews, refsOf, startBenchRollout } from "./fleet.ts";

const PRODUCT = "bench";
const trees = Deno.args;
if (!trees.length) {
  console.error("usage: fleet_ab.ts <tree> <tree>...");
  Deno.exit(2);
}
const n = Number(Deno.env.get("FLEET_DEVICES") ?? 100_000);
const runs = Number(Deno.env.get("AB_RUNS") ?? 100);
const blocks = Number(Deno.env.get("AB_BLOCKS") ?? 10);
const only = Deno.env.get("FLEET_ONLY");
const explainMs = Deno.env.get("AB_EXPLAIN");
const say = (s: string) => console.error(`[fleet_ab] ${s}`);
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];

type Open = (c: { engine: "postgres"; url: string; poolSize: number }) => Promise<Stores>;
const opens: Open[] = [];
for (const tree of trees) {
  const mod = await import(new URL(`${tree}/server/db/mod.ts`, `file://${Deno.cwd()}/`).href);
  opens.push(mod.openStores);
}

await using pg = await startPostgres();
// AB_DB=each: a database per tree, each seeded alike (for builds whose migrations differ; each its own ids of product
// types and firmwares, so only the answers' sizes are compared), else one for all.
const each = Deno.env.get("AB_DB") === "each";
const urls: string[] = [];
const refs: FleetRefs[] = [];
for (let i = 0; i < (each ? opens.length : 1); i++) {
  const url = await pg.createDatabase();
  const first = await opens[i]({ engine: "postgres", url, poolSize: 4 });
  refs.push(await refsOf(first));
  await first.close();
  say(`seeding ${n} devices`);
  await seedFleetPostgres(url, n, refs[i]);
  // AB_SQL=<statements>: run on the seeded database before the stores open (e.g. an index to try).
  const extra = Deno.env.get("AB_SQL");
  for (const statement of extra?.split(";").filter((s) => s.trim()) ?? []) await pgQuery(url, statement);
  urls.push(url);
}
const url = urls[0];
const stores: Stores[] = [];
const own = (i: number) => each ? i : 0;
for (const [i, open] of opens.entries()) {
  stores.push(await open({ engine: "postgres", url: urls[own(i)], poolSize: 4 }));
}
for (const [i, s] of stores.entries()) {
  if (i !== own(i)) continue;
  if (!await s.devices.syncFirmwareKeys(PRODUCT)) throw new Error("the keys sync did not finish");
}
// Each tree's views (the same list; the ids of its database's product types and firmwares).
let views: [string, DeviceView[]][] = fleetViews(refs[0]).map(([what], k) => [
  what,
  stores.map((_, i) => fleetViews(refs[own(i)])[k][1]),
]);
if (Deno.env.get("AB_ROLLOUT") === "1") {
  for (const [i, s] of stores.entries()) {
    if (i !== own(i)) continue;
    await startBenchRollout(s, refs[i].firmwareIds[1]);
    if (!await s.devices.syncFirmwareKeys(PRODUCT)) throw new Error("the keys sync did not finish");
  }
  views = fleetRolloutViews(refs[0].firmwareIds[1]).map(([what], k) => [
    what,
    stores.map((_, i) => fleetRolloutViews(refs[own(i)].firmwareIds[1])[k][1]),
  ]);
}
views = views.filter(([what]) => !only || what.includes(only));

// The answers agree (ids, total, every field) on pages 0-41 of every view before anything is measured.
for (const [what, view] of views) {
  for (let page = 0; page < 42; page++) {
    const answers = await Promise.all(stores.map((s, i) => s.devices.view(view[i], page, 25, PRODUCT)));
    const a = JSON.stringify(each ? answers[0].data.length : answers[0]);
    answers.forEach((b, i) => {
      if (JSON.stringify(each ? b.data.length : b) !== a) {
        throw new Error(`${what}, page ${page}: ${trees[i]} answers otherwise`);
      }
    });
  }
}
say(`answers equal on pages 0-41 of ${views.length} views${each ? " (their sizes)" : ""}`);

const db = new URL(url).pathname.slice(1);
const log = `${pg.dataDir}/../log`;
let logFrom = 0;
if (explainMs !== undefined) {
  for (const s of stores) await s.close();
  await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET session_preload_libraries = 'auto_explain'`);
  await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET auto_explain.log_min_duration = ${Number(explainMs)}`);
  await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET auto_explain.log_analyze = on`);
  await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET auto_explain.log_buffers = on`);
  await pgQuery(pg.adminUrl, `ALTER DATABASE ${db} SET auto_explain.log_timing = on`);
  stores.length = 0;
  for (const open of opens) stores.push(await open({ engine: "postgres", url, poolSize: 4 }));
  logFrom = (await Deno.readTextFile(log)).length;
}

let seed = 1;
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
console.log(`| view (${n} devices, PostgreSQL), p50 / p99 ms | ${trees.join(" | ")} | load |`);
console.log(`|---|${trees.map(() => "---").join("|")}|---|`);
for (const [what, view] of views) {
  const ms: number[][] = trees.map(() => []);
  const byPage: [number, number][][] = trees.map(() => []);
  const loads = new Set<string>([await load()]);
  for (let i = 0; i < 5; i++) for (const [k, s] of stores.entries()) await s.devices.view(view[k], i, 25, PRODUCT);
  for (let b = 0; b < blocks; b++) {
    const pages = Array.from({ length: runs }, () => Math.floor(rand() * 40));
    const order = trees.map((_, i) => i);
    if (b % 2) order.reverse();
    for (const i of order) {
      for (const page of pages) {
        const t = performance.now();
        await stores[i].devices.view(view[i], page, 25, PRODUCT);
        ms[i].push(performance.now() - t);
        byPage[i].push([page, ms[i].at(-1)!]);
      }
    }
    loads.add(await load());
  }
  const cells = ms.map((m) => {
    m.sort((a, b) => a - b);
    return `${percentile(m, 0.5).toFixed(2)} / ${percentile(m, 0.99).toFixed(2)}`;
  });
  if (Deno.env.get("AB_PAGES") === "1") {
    // Where the time goes by page (OFFSET): the median of pages 0-9, 10-19, 20-29, 30-39, and the slowest runs' pages.
    for (const [i, runsOf] of byPage.entries()) {
      const median = (k: number) => {
        const m = runsOf.filter(([p]) => Math.floor(p / 10) === k).map(([, t]) => t).sort((a, b) => a - b);
        return percentile(m, 0.5).toFixed(2);
      };
      const slow = runsOf.toSorted((a, b) => b[1] - a[1]).slice(0, 12).map(([p, t]) => `${p}:${t.toFixed(1)}`);
      console.error(
        `${trees[i]} ${what}: p50 by pages 0-9…30-39 ${[0, 1, 2, 3].map(median).join(" ")}; slowest ${slow}`,
      );
    }
  }
  const l = [...loads].map(Number);
  console.log(`| ${what} | ${cells.join(" | ")} | ${Math.min(...l).toFixed(1)}–${Math.max(...l).toFixed(1)} |`);
}
for (const s of stores) await s.close();
// AB_LOG=<file>: the cluster's log (e.g. with AB_SQL="ALTER ROLE postgres SET log_planner_stats = on").
const logTo = Deno.env.get("AB_LOG");
if (logTo) await Deno.copyFile(log, logTo);
if (explainMs !== undefined) {
  const plans = (await Deno.readTextFile(log)).slice(logFrom).split(/\n(?=\S)/).filter((p) => p.includes("duration"));
  console.log(`\n### statements over ${explainMs} ms (auto_explain): ${plans.length}\n${plans.join("\n")}`);
}
