/**
 * A simulated fleet polling (issue 35): `devices` registered devices (DEVICE_AUTH=token, each its own token, seeded in
 * one statement) on a throwaway PostgreSQL cluster, two server replicas, and an open-loop load generator of
 * `generators` processes (scripts/bench/poll_load.ts) paced at `rate` requests per second for `seconds`: §6 check-ins
 * and, for the share `ddiShare`, hawkBit DDI polls, each by a random device, every one a poll that changes nothing.
 * Reports the rate achieved, errors by kind, latency, and where the CPU went (generator, servers, PostgreSQL, and what
 * else ran on the machine meanwhile), so a reader can tell whether the generator or the servers were the limit.
 *
 * For finding where PostgreSQL's time goes (docs/DECISIONS.md, "Last-seen writes of a million-device fleet"):
 * FLEET_POLL_STATEMENTS=1 loads pg_stat_statements into the cluster and prints, after the load, the statements that
 * took the most time from the end of seeding on, and how many of the devices' row updates were HOT; FLEET_POLL_SQL runs
 * statements (separated by `;;`) on the seeded fleet before the load, to try a schema change against the same load
 * (e.g. indexes dropped).
 */
import { pgQuery, startPostgres, type TestPostgres } from "../../testing/postgres.ts";
import { POLLED_VERSION, polledDeviceId, polledDeviceToken, seedPolledFleet } from "../../testing/postgres_bench.ts";
import type { PollLoadConfig, PollLoadResult } from "./poll_load.ts";
import { serverEnv } from "./steps.ts";
import { DENO, fixed, type Proc, processCpuSeconds, ROOT, spawnServer, timed } from "./util.ts";

export interface FleetPollSize {
  devices: number;
  rate: number;
  seconds: number;
  generators: number;
  ddiShare: number;
  /** Requests open at once per generator process (see benchFleetPolls). */
  inFlight: number;
}

export interface FleetPollFigures extends FleetPollSize, LoadRun {
  replicas: number;
  seedMs: number;
  /** The same load against bare Hono servers answering the same bytes (the generator's own limit). */
  bare: LoadRun & { seconds: number };
}

const TICKS = 100; // USER_HZ: /proc's CPU times are in 1/100 s on Linux

/** utime + stime (+ reaped children's with `children`) of a process, in seconds; 0 when it is gone. */
function cpuOf(pid: number, children = false): number {
  try {
    return processCpuSeconds(pid, children);
  } catch {
    return 0;
  }
}

/** The postmaster and its backends (the reaped ones through the postmaster's children's times). */
function postgresCpu(postmaster: number): number {
  let total = cpuOf(postmaster, true);
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster) total += cpuOf(Number(e.name));
    } catch { /* gone */ }
  }
  return total;
}

/** The machine's busy CPU seconds (all cores) from /proc/stat. */
function machineBusy(): number {
  const [, ...f] = Deno.readTextFileSync("/proc/stat").split("\n")[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / TICKS;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;

/** What one load run measured: the generators' results merged, and the CPU of each party in its window. */
interface LoadRun {
  due: number;
  sent: number;
  notSent: number;
  ok: number;
  achievedRps: number;
  failed: Record<string, number>;
  p50: number;
  p99: number;
  serviceP50: number;
  serviceP99: number;
  /** Each second of the run (warm-up included), the generators' largest lag (PollLoadResult.lag). */
  lag: number[];
  cpu: { generator: number; servers: number; postgres: number; machine: number; cores: number };
}

/** The generators against `urls` (the servers: `servers`; PostgreSQL: `postmaster`, 0 for none) for `size.seconds`. */
async function runLoad(
  urls: string[],
  servers: Proc[],
  postmaster: number,
  size: FleetPollSize,
  secret: string,
): Promise<LoadRun> {
  const warmUpMs = Math.min(5000, Math.max(1000, size.seconds * 100));
  const startAt = Date.now() + 1500; // the generators' start-up
  const measureAt = startAt + warmUpMs;
  const config: PollLoadConfig = {
    urls,
    rate: size.rate / size.generators,
    startAt,
    measureAt,
    seconds: size.seconds,
    devices: size.devices,
    secret,
    ddiShare: size.ddiShare,
    tenant: "DEFAULT",
    maxInFlight: size.inFlight,
  };
  const generators = Array.from({ length: size.generators }, () =>
    new Deno.Command(DENO, {
      args: ["run", "-A", `${ROOT}scripts/bench/poll_load.ts`, JSON.stringify(config)],
      cwd: ROOT,
      stdout: "piped",
      stderr: "inherit",
    }).spawn());
  const sample = () => ({
    generator: generators.reduce((n, g) => n + cpuOf(g.pid), 0),
    servers: servers.reduce((n, s) => n + cpuOf(s.pid, true), 0),
    postgres: postmaster ? postgresCpu(postmaster) : 0,
    machine: machineBusy(),
  });
  await new Promise((r) => setTimeout(r, Math.max(0, measureAt - Date.now())));
  const before = sample();
  await new Promise((r) => setTimeout(r, Math.max(0, measureAt + size.seconds * 1000 - Date.now())));
  const after = sample();
  const results: PollLoadResult[] = [];
  for (const g of generators) {
    const out = await g.output();
    if (!out.success) throw new Error(`a load generator failed (${out.code})`);
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    results.push(JSON.parse(lines[lines.length - 1]));
  }
  const failed: Record<string, number> = {};
  for (const r of results) for (const [k, n] of Object.entries(r.failed)) failed[k] = (failed[k] ?? 0) + n;
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const service = results.flatMap((r) => r.serviceLatencies).sort((a, b) => a - b);
  const sum = (k: "due" | "sent" | "notSent" | "ok") => results.reduce((n, r) => n + r[k], 0);
  return {
    due: sum("due"),
    sent: sum("sent"),
    notSent: sum("notSent"),
    ok: sum("ok"),
    achievedRps: latencies.length / size.seconds,
    failed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    serviceP50: percentile(service, 0.5),
    serviceP99: percentile(service, 0.99),
    lag: Array.from(
      { length: Math.max(...results.map((r) => r.lag.length)) },
      (_, i) => Math.max(...results.map((r) => r.lag[i] ?? 0)),
    ),
    cpu: {
      generator: after.generator - before.generator,
      servers: after.servers - before.servers,
      postgres: after.postgres - before.postgres,
      machine: after.machine - before.machine,
      cores: navigator.hardwareConcurrency,
    },
  };
}

const statementsWanted = () => Deno.env.get("FLEET_POLL_STATEMENTS") === "1";

/** Restarts the cluster with pg_stat_statements loaded (before any server connects). */
async function loadStatementStats(pg: TestPostgres): Promise<void> {
  await pgQuery(pg.adminUrl, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  await pg.stop();
  await pg.start();
}

/** FLEET_POLL_SQL's statements, then (FLEET_POLL_STATEMENTS) the statistics zeroed: what follows is the load's. */
async function beforeLoad(url: string, say: (s: string) => void): Promise<void> {
  const extra = Deno.env.get("FLEET_POLL_SQL");
  if (extra) {
    const started = Date.now();
    for (const statement of extra.split(";;")) if (statement.trim()) await pgQuery(url, statement);
    say(`F. FLEET_POLL_SQL run in ${Date.now() - started} ms`);
  }
  if (!statementsWanted()) return;
  await pgQuery(url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await pgQuery(url, "SELECT pg_stat_statements_reset(), pg_stat_reset()");
}

/** The statements that took PostgreSQL the most time since beforeLoad(), and the devices' updates (HOT or not). */
async function statementReport(url: string, say: (s: string) => void): Promise<void> {
  const top = await pgQuery(
    url,
    `SELECT calls, round(total_exec_time::numeric) AS ms, round(mean_exec_time::numeric, 3) AS mean_ms, rows,
       left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
     FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 8`,
  );
  for (const r of top) say(`F. statement: ${JSON.stringify(r)}`);
  // devices is written when a device's hour of last check-in moves, device_seen (the exact time) by every batch.
  for (
    const t of await pgQuery(
      url,
      `SELECT relname, n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_user_tables
       WHERE relname IN ('devices', 'device_seen') ORDER BY 1`,
    )
  ) say(`F. ${t.relname} rows updated: ${t.updated}, of them HOT: ${t.hot}`);
}

export async function benchFleetPolls(
  tmp: string,
  size: FleetPollSize,
  say: (s: string) => void,
): Promise<FleetPollFigures> {
  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  if (statementsWanted()) await loadStatementStats(pg);
  const postmaster = Number((await Deno.readTextFile(`${pg.dataDir}/postmaster.pid`)).split("\n")[0]);
  const secret = crypto.randomUUID().replaceAll("-", "");
  const replicas = 2;
  const servers: Proc[] = [];
  let run: LoadRun, seedMs: number;
  const answers = { checkin: `${tmp}/fleet-checkin.json`, poll: `${tmp}/fleet-poll.json` };
  try {
    for (let i = 0; i < replicas; i++) {
      const dataDir = `${tmp}/fleet-polls-${i}`;
      await Deno.mkdir(dataDir, { recursive: true });
      servers.push(
        await spawnServer("server/main.ts", {
          ...serverEnv(dataDir),
          DATABASE_URL: url,
          DEVICE_AUTH: "token",
          LOG_LEVEL: "quiet",
        }),
      );
    }
    say(`F. seeding ${size.devices.toLocaleString("en")} devices with their tokens`);
    seedMs = (await timed(() => seedPolledFleet(url, size.devices, secret))).ms;
    await beforeLoad(url, say);
    say(
      `F. ${size.rate}/s for ${size.seconds} s (${size.generators} generator processes, ${
        Math.round(size.ddiShare * 100)
      } % DDI polls) through ${replicas} replicas`,
    );
    run = await runLoad(servers.map((s) => s.url), servers, postmaster, size, secret);
    // Where a backlog began (the warm-up is the first seconds): the generators' lag, one figure per second.
    say(`F. the generators' lag each second, ms: ${run.lag.map((ms) => Math.round(ms)).join(" ")}`);
    if (statementsWanted()) await statementReport(url, say);
    // One answer of each kind, for the bare baseline's bytes.
    const token = `Bearer ${polledDeviceToken(secret, 0)}`;
    const checkin = await fetch(`${servers[0].url}/api/v1/device/${polledDeviceId(0)}/checkin`, {
      method: "POST",
      headers: { authorization: token, "content-type": "application/json" },
      body: JSON.stringify({ versionInfo: POLLED_VERSION }),
    });
    const poll = await fetch(`${servers[0].url}/DEFAULT/controller/v1/${polledDeviceId(0)}`, {
      headers: { authorization: `TargetToken ${polledDeviceToken(secret, 0)}`, accept: "application/json" },
    });
    if (!checkin.ok || !poll.ok) throw new Error(`sample answers: ${checkin.status}, ${poll.status}`);
    await Deno.writeTextFile(answers.checkin, await checkin.text());
    await Deno.writeTextFile(answers.poll, await poll.text());
  } finally {
    for (const s of servers) await s.stop();
  }
  // The same generators against bare Hono routes answering the same bytes, as many processes as replicas: what the
  // generator reaches on this machine when the servers cost (almost) nothing.
  const bareSeconds = Math.min(size.seconds, 20);
  say(`F. the same load against ${replicas} bare Hono servers answering the same bytes, ${bareSeconds} s`);
  const bare: Proc[] = [];
  let baseline: LoadRun;
  try {
    for (let i = 0; i < replicas; i++) {
      bare.push(
        await spawnServer("scripts/bench/bare_device_server.ts", {
          CHECKIN_FILE: answers.checkin,
          POLL_FILE: answers.poll,
        }),
      );
    }
    baseline = await runLoad(bare.map((s) => s.url), bare, 0, { ...size, seconds: bareSeconds }, secret);
  } finally {
    for (const s of bare) await s.stop();
  }
  return { ...size, ...run, replicas, seedMs, bare: { ...baseline, seconds: bareSeconds } };
}

/** Answers in the measured window that were not 2xx, and requests that failed there (network errors, timeouts). */
export const fleetPollFailures = (f: FleetPollFigures) =>
  [f.failed, f.bare.failed].reduce((n, failed) => n + Object.values(failed).reduce((a, b) => a + b, 0), 0);

/** The rows of docs/PERFORMANCE.md's results. */
export function fleetPollRows(f: FleetPollFigures): [string, string, string, string][] {
  const n = (x: number) => Math.round(x).toLocaleString("en");
  const errors = Object.values(f.failed).reduce((a, b) => a + b, 0);
  const bareErrors = Object.values(f.bare.failed).reduce((a, b) => a + b, 0);
  const notSent = f.notSent;
  const ratio = f.achievedRps / f.rate;
  const byKind = Object.entries(f.failed).map(([k, c]) => `${c}× ${k}`).join(", ");
  const seconds = f.seconds;
  const share = (x: number) => `${fixed(x, 1)} s (${fixed(x / seconds, 2)} cores)`;
  const other = Math.max(0, f.cpu.machine - f.cpu.generator - f.cpu.servers - f.cpu.postgres);
  return [
    [
      `Simulated fleet: ${n(f.devices)} registered devices (DEVICE_AUTH=token) polling at ${
        n(f.rate)
      }/s for ${seconds} s ` +
      `through ${f.replicas} replicas on PostgreSQL (${Math.round((1 - f.ddiShare) * 100)} % §6 check-ins, ${
        Math.round(f.ddiShare * 100)
      } % DDI polls; ${f.generators} generator processes, ${f.inFlight} requests open each), answered req/s vs the target`,
      `${fixed(f.achievedRps, 0)} / ${n(f.rate)} = ${fixed(ratio)}; ${n(f.ok)} ok, ${errors} failed${
        byKind ? ` (${byKind})` : ""
      }, ${n(notSent)} due but not sent`,
      "1.00 with 0 errors",
      errors === 0 && notSent === 0 && ratio >= 0.99 ? "yes" : "**no**",
    ],
    [
      "Simulated fleet: latency p50 / p99 from when each request was due (from when it was sent)",
      `${f.p50} / ${f.p99} ms (${f.serviceP50} / ${f.serviceP99} ms)`,
      "measured",
      "-",
    ],
    [
      `Simulated fleet: CPU in the ${seconds} s on ${f.cpu.cores} cores: generator / 2 servers / PostgreSQL / other processes`,
      `${share(f.cpu.generator)} / ${share(f.cpu.servers)} / ${share(f.cpu.postgres)} / ${share(other)}; seeding ${
        fixed(f.seedMs / 1000, 1)
      } s`,
      "measured",
      "-",
    ],
    [
      `Simulated fleet: the same load for ${f.bare.seconds} s against ${f.replicas} bare Hono servers answering the same ` +
      "bytes (the generator's own limit): answered req/s vs the target; the fleet's vs this; CPU generator / bare servers",
      `${fixed(f.bare.achievedRps, 0)} / ${n(f.rate)} = ${fixed(f.bare.achievedRps / f.rate)}; ${
        fixed(f.achievedRps, 0)
      } / ${fixed(f.bare.achievedRps, 0)} = ${fixed(f.achievedRps / f.bare.achievedRps)}; ${
        fixed(f.bare.cpu.generator / f.bare.seconds, 2)
      } / ${fixed(f.bare.cpu.servers / f.bare.seconds, 2)} cores (p99 ${f.bare.serviceP99} ms from sending, ${
        n(f.bare.notSent)
      } not sent, ${bareErrors} failed)`,
      "measured",
      "-",
    ],
  ];
}
