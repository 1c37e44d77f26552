/**
 * `deno task bench --fleet [--quick]`: the fleet views (docs/REQUIREMENTS.md §16) at 100,000 devices on both engines, measured at
 * the store (what an uncached GET devices or GET overview costs; the HTTP layer adds its own ~0.1 ms): p50 and p99 of
 * a filtered, sorted page (first 40 pages, picked at random, as bookmarked views open) for each kind of filter and
 * sort, a deep page, and the overview's counts.
 */
import { openStores, type Stores } from "../../server/db/mod.ts";
import { type DeviceView } from "../../server/db/rules/device_view.ts";
import { type ViewCursor } from "../../server/db/rules/view_cursor.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { type FleetRefs, seedFleetPostgres, seedFleetSqlite, type SqliteStats } from "../../testing/fleet_bench.ts";

const PRODUCT = "bench";

export interface FleetRow {
  engine: string;
  what: string;
  p50: number;
  p99: number;
}

export async function refsOf(stores: Stores): Promise<FleetRefs> {
  const productTypeIds: string[] = [];
  for (const name of ["Clinic", "Home", "Sport", "Trial"]) {
    productTypeIds.push((await stores.productTypes.create(name))._id);
  }
  const firmwareIds: string[] = [];
  for (const name of ["fw-a.xz", "fw-b.xz", "fw-default.xz"]) {
    const id = crypto.randomUUID();
    const bytes = xzBytes(name);
    await stores.firmwares.insert({
      _id: id,
      name,
      size: bytes.byteLength,
      sha256: "0".repeat(64),
      createdAt: new Date().toISOString(),
    });
    firmwareIds.push(id);
  }
  await stores.deviceTypes.ensure(PRODUCT);
  const managed = (await stores.deviceTypes.list()).find((t) => t.name === `jeecee_baby_${PRODUCT}`)!;
  await stores.deviceTypes.setDefaultFirmware(managed._id, firmwareIds[2]);
  return { productTypeIds, firmwareIds: firmwareIds.slice(0, 2) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

export async function measure(
  runs: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5; i++) await fn(i); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
}

/** The fleet views measured (scripts/bench/fleet_ab.ts compares builds on the same list). */
export function fleetViews(refs: FleetRefs): [string, DeviceView][] {
  return [
    ["product type, sorted by last check-in desc", {
      filter: { productTypeId: refs.productTypeIds[1] },
      sort: "lastLoggedIn",
      order: "desc",
    }],
    ["firmware in effect (the default) + seen 7d, sorted by app", {
      filter: { firmware: refs.firmwareIds.length ? "default" : "custom", seen: "7d" },
      sort: "app",
      order: "asc",
    }],
    ["custom firmware, sorted by updated desc", { filter: { firmware: "custom" }, sort: "updatedAt", order: "desc" }],
    ["app + OS version, sorted by created", {
      filter: { app: "2.4.1", os: "5.10.0" },
      sort: "createdAt",
      order: "asc",
    }],
    ["no filter, sorted by product type (name)", { filter: {}, sort: "productType", order: "asc" }],
    ["never checked in, sorted by device id desc", { filter: { seen: "never" }, sort: "deviceId", order: "desc" }],
    // filter + sort=productType: the groups walked in name order, each counted only as far as the page needs.
    ["filter + sort=productType: seen 7d, by product type", {
      filter: { seen: "7d" },
      sort: "productType",
      order: "asc",
    }],
    ["filter + sort=productType: app + OS version, by product type desc", {
      filter: { app: "2.4.1", os: "5.10.0" },
      sort: "productType",
      order: "desc",
    }],
  ];
}

/** The bench's rollout of `firmwareId` to every device (stages 10, 50, 100 %), started. */
export async function startBenchRollout(stores: Pick<Stores, "rollouts">, firmwareId: string) {
  const who = { email: "bench@example.com" };
  const rollout = await stores.rollouts.create(
    { name: "bench", firmwareId, productTypeId: null, stages: [10, 50, 100], autoAdvance: false },
    who,
  );
  await stores.rollouts.act(rollout._id, "start", who, PRODUCT);
  return rollout;
}

/** The views measured with a rollout of `firmware` at 10 %. */
export function fleetRolloutViews(firmware: string): [string, DeviceView][] {
  return [
    ["with a rollout at 10 %: firmware in effect = the rollout's, sorted by last check-in desc", {
      filter: { firmware },
      sort: "lastLoggedIn",
      order: "desc",
    }],
    ["with a rollout at 10 %: firmware in effect = the default, sorted by device id", {
      filter: { firmware: "default" },
      sort: "deviceId",
      order: "asc",
    }],
  ];
}

async function benchStores(engine: string, stores: Stores, refs: FleetRefs, n: number, runs: number) {
  const rows: FleetRow[] = [];
  const views = fleetViews(refs);
  // FLEET_ONLY=<text>: only the views whose name holds it (and none of the other measurements).
  const only = Deno.env.get("FLEET_ONLY");
  let seed = 1;
  const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  // The seed wrote rows, not keys: the first sync computes every device's kept firmware key.
  const sync = async (what: string) => {
    const t0 = performance.now();
    if (!await stores.devices.syncFirmwareKeys(PRODUCT)) throw new Error(`${what}: the keys sync did not finish`);
    const ms = performance.now() - t0;
    rows.push({ engine, what: `firmware keys sync, ${what} (once; context)`, p50: ms, p99: ms });
  };
  await sync("every device (the seed's first)");
  for (const [what, view] of views) {
    if (only && !what.includes(only)) continue;
    const r = await measure(runs, () => stores.devices.view(view, Math.floor(rand() * 40), 25, PRODUCT));
    rows.push({ engine, what: `GET devices: ${what}, page 0-39 of 25`, ...r });
  }
  if (only) return rows;
  const deep = await measure(Math.max(10, runs / 10), () =>
    stores.devices.view(
      { filter: { productTypeId: refs.productTypeIds[1] }, sort: "lastLoggedIn", order: "desc" },
      Math.floor((n * 0.225) / 25) - 1,
      25,
      PRODUCT,
    ));
  rows.push({ engine, what: "GET devices: the same view, its last page (context)", ...deep });
  const overview = await measure(runs, () => stores.devices.overview(PRODUCT));
  rows.push({ engine, what: "GET overview (every count)", ...overview });
  // The floor: one device read by its key (GET devices/{id}), to tell the machine's jitter from a view's cost.
  const floor = await measure(runs, (i) => stores.devices.get(`DEV-${String(i % n).padStart(6, "0")}`));
  rows.push({ engine, what: "one device by its id (context: the machine's floor)", ...floor });
  // devices.csv reads the view in keyset batches of 1000 (server/routes/fleet.ts): the whole export, once.
  const rss0 = Deno.memoryUsage().rss;
  const t = performance.now();
  let exported = 0;
  for (let after: ViewCursor | null = null;;) {
    const { data, next } = await stores.devices.batch(
      { filter: {}, sort: "lastLoggedIn", order: "desc" },
      after,
      1000,
      PRODUCT,
    );
    exported += data.length;
    if (next === null) break;
    after = next;
  }
  const exportMs = performance.now() - t;
  const grew = (Deno.memoryUsage().rss - rss0) / 1024 ** 2;
  rows.push({
    engine,
    what: `devices.csv read: all ${exported} devices by last check-in in batches of 1000 (total; RSS grew ${
      grew.toFixed(1)
    } MiB) (context)`,
    p50: exportMs,
    p99: exportMs,
  });
  // A rollout holding devices (docs/REQUIREMENTS.md §13): the firmware filters read the kept firmware keys once synced (the sync's
  // time is a context row), the overview their kept counts.
  const rolloutFirmware = refs.firmwareIds[1];
  const rollout = await startBenchRollout(stores, rolloutFirmware);
  await sync("after a rollout to all devices started (10 %)");
  const rolloutViews = fleetRolloutViews(rolloutFirmware);
  // As many runs as the other views: of 100 the p99 was the slowest one (the machine's worst moment, not the view's).
  for (const [what, view] of rolloutViews) {
    const r = await measure(runs, () => stores.devices.view(view, Math.floor(rand() * 40), 25, PRODUCT));
    rows.push({ engine, what: `GET devices: ${what}, page 0-39 of 25`, ...r });
  }
  const withRollout = await measure(runs, () => stores.devices.overview(PRODUCT));
  rows.push({ engine, what: "GET overview with a rollout at 10 %", ...withRollout });
  // The usual steady state: the rollout finished and promoted (its firmware the default): the plain conditions again.
  for (const action of ["advance", "advance", "advance", "promote"] as const) {
    await stores.rollouts.act(rollout._id, action, { email: "bench@example.com" }, PRODUCT);
  }
  await sync("after its advance to 100 % and promotion");
  const promoted = await measure(runs, () =>
    stores.devices.view(
      { filter: { firmware: rolloutFirmware, seen: "7d" }, sort: "app", order: "asc" },
      Math.floor(rand() * 40),
      25,
      PRODUCT,
    ));
  rows.push({
    engine,
    what: "GET devices: the rollout finished and promoted: its firmware + seen 7d, sorted by app, page 0-39 of 25",
    ...promoted,
  });
  const promotedOverview = await measure(runs, () => stores.devices.overview(PRODUCT));
  rows.push({ engine, what: "GET overview, the rollout finished and promoted", ...promotedOverview });
  return rows;
}

export async function benchFleet(tmp: string, n: number, runs: number, say: (s: string) => void): Promise<FleetRow[]> {
  const rows: FleetRow[] = [];
  // BENCH_ENGINES=sqlite or postgres: one engine only (default: both).
  const engines = (Deno.env.get("BENCH_ENGINES") ?? "sqlite,postgres").split(",");
  if (engines.includes("sqlite")) {
    say(`fleet views: SQLite, seeding ${n} devices`);
    const file = `${tmp}/fleet.sqlite3`;
    let opened = await openStores({ engine: "sqlite", file });
    const refs = await refsOf(opened);
    await opened.close();
    // FLEET_SQLITE_STATS=none|analyze|optimize: the planner statistics of the seeded database (default none: as a
    // console runs, docs/DECISIONS.md "Fleet views: the tail on PostgreSQL, statistics on SQLite").
    const stats = Deno.env.get("FLEET_SQLITE_STATS") ?? "none";
    if (!["none", "analyze", "optimize"].includes(stats)) {
      throw new Error("FLEET_SQLITE_STATS: none, analyze or optimize");
    }
    seedFleetSqlite(file, n, refs, stats as SqliteStats);
    opened = await openStores({ engine: "sqlite", file });
    try {
      rows.push(...await benchStores("SQLite", opened, refs, n, runs));
    } finally {
      await opened.close();
    }
  }
  if (engines.includes("postgres")) {
    say(`fleet views: PostgreSQL, seeding ${n} devices`);
    await using pg = await startPostgres();
    const url = await pg.createDatabase();
    let opened = await openStores({ engine: "postgres", url, poolSize: 4 });
    const refs = await refsOf(opened);
    await opened.close();
    await seedFleetPostgres(url, n, refs);
    opened = await openStores({ engine: "postgres", url, poolSize: 4 });
    try {
      rows.push(...await benchStores("PostgreSQL", opened, refs, n, runs));
    } finally {
      await opened.close();
    }
  }
  return rows;
}

export function fleetTable(rows: FleetRow[], n: number): string {
  const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
  return [
    `| engine | at ${n.toLocaleString("en-US")} devices | p50 | p99 | goal p99 ≤ 10 ms |`,
    "|---|---|---|---|---|",
    ...rows.map((r) =>
      `| ${r.engine} | ${r.what} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${
        r.what.includes("context") ? "-" : r.p99 <= 10 ? "yes" : "**no**"
      } |`
    ),
  ].join("\n");
}
