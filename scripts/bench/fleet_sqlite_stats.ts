/**
 * The SQLite fleet views with and without planner statistics, in one process:
 *   deno run -A scripts/bench/fleet_sqlite_stats.ts [none,analyze,optimize]
 * One database file per mode (testing/fleet_bench.ts SqliteStats: none as a console runs, a full ANALYZE, SQLite's
 * `PRAGMA optimize=0x10002`), each seeded alike (seedFleetSqlite, FLEET_DEVICES, default 100,000); each view of the
 * bench's list (scripts/bench/fleet.ts; then its rollout views, a rollout at 10 %) runs AB_BLOCKS blocks of AB_RUNS
 * random pages 0-39 of 25 per mode, the modes alternating block by block (the order reversed every other block) on
 * the same pages. Prints p50 / p99 per view and mode, the 1-minute load, and what sqlite_stat1 holds in each.
 */
import { type OpenStores, openStores } from "../../server/db/mod.ts";
import type { DeviceView } from "../../server/db/rules/device_view.ts";
import { type FleetRefs, seedFleetSqlite, type SqliteStats } from "../../testing/fleet_bench.ts";
import { fleetRolloutViews, fleetViews, refsOf, startBenchRollout } from "./fleet.ts";

const PRODUCT = "bench";
const modes = (Deno.args[0] ?? "none,analyze,optimize").split(",") as SqliteStats[];
const n = Number(Deno.env.get("FLEET_DEVICES") ?? 100_000);
const runs = Number(Deno.env.get("AB_RUNS") ?? 100);
const blocks = Number(Deno.env.get("AB_BLOCKS") ?? 10);
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
const tmp = await Deno.makeTempDir({ prefix: "fleet-stats-" });
const stores: OpenStores[] = [];
const refs: FleetRefs[] = [];
try {
  for (const mode of modes) {
    const file = `${tmp}/${mode}.sqlite3`;
    const first = await openStores({ engine: "sqlite", file });
    refs.push(await refsOf(first));
    await first.close();
    const stat = seedFleetSqlite(file, n, refs.at(-1)!, mode);
    console.error(`[stats] ${mode}: sqlite_stat1 rows ${stat}`);
    stores.push(await openStores({ engine: "sqlite", file }));
    if (!await stores.at(-1)!.devices.syncFirmwareKeys(PRODUCT)) throw new Error("the keys sync did not finish");
  }
  let seed = 1;
  const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
  const measure = async (what: string, call: (s: OpenStores, i: number, page: number) => Promise<unknown>) => {
    const ms: number[][] = modes.map(() => []);
    const loads = new Set<string>([await load()]);
    for (let i = 0; i < 5; i++) for (const [k, s] of stores.entries()) await call(s, k, i);
    for (let b = 0; b < blocks; b++) {
      const pages = Array.from({ length: runs }, () => Math.floor(rand() * 40));
      const order = modes.map((_, i) => i);
      if (b % 2) order.reverse();
      for (const i of order) {
        for (const page of pages) {
          const t = performance.now();
          await call(stores[i], i, page);
          ms[i].push(performance.now() - t);
        }
      }
      loads.add(await load());
    }
    const cells = ms.map((m) => {
      m.sort((a, b) => a - b);
      return `${percentile(m, 0.5).toFixed(2)} / ${percentile(m, 0.99).toFixed(2)}`;
    });
    const l = [...loads].map(Number);
    console.log(`| ${what} | ${cells.join(" | ")} | ${Math.min(...l).toFixed(1)}–${Math.max(...l).toFixed(1)} |`);
  };
  console.log(`| SQLite view (${n} devices), p50 / p99 ms | ${modes.join(" | ")} | load |`);
  console.log(`|---|${modes.map(() => "---").join("|")}|---|`);
  const page = (views: (i: number) => [string, DeviceView][], k: number) => (s: OpenStores, i: number, p: number) =>
    s.devices.view(views(i)[k][1], p, 25, PRODUCT);
  const base = (i: number) => fleetViews(refs[i]);
  for (const [k, [what]] of base(0).entries()) await measure(what, page(base, k));
  await measure("GET overview (every count)", (s) => s.devices.overview(PRODUCT));
  for (const [i, s] of stores.entries()) {
    await startBenchRollout(s, refs[i].firmwareIds[1]);
    if (!await s.devices.syncFirmwareKeys(PRODUCT)) throw new Error("the keys sync did not finish");
  }
  const rollout = (i: number) => fleetRolloutViews(refs[i].firmwareIds[1]);
  for (const [k, [what]] of rollout(0).entries()) await measure(what, page(rollout, k));
  await measure("GET overview with a rollout at 10 %", (s) => s.devices.overview(PRODUCT));
} finally {
  for (const s of stores) await s.close();
  await Deno.remove(tmp, { recursive: true });
}
