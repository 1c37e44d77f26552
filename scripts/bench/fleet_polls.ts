/**
 * A simulated fleet polling (issue 35): `devices` registered devices (DEVICE_AUTH=token, each its own token, seeded in
 * one statement) on a throwaway PostgreSQL cluster, two server replicas, and an open-loop load generator of
 * `generators` processes (scripts/bench/poll_load.ts) paced at `rate` requests per second for `seconds`: §6 check-ins
 * and, for the share `ddiShare`, hawkBit DDI polls, each by a random device, every one a poll that changes nothing.
 * Reports the rate achieved, errors by kind, latency, and where the CPU went (generator, servers, PostgreSQL, and what
 * else ran on the machine meanwhile), so a reader can tell whether the generator or the servers were the limit.
 */
import { startPostgres } from "../../testing/postgres.ts";
import { seedPolledFleet } from "../../testing/postgres_bench.ts";
import type { PollLoadConfig, PollLoadResult } from "./poll_load.ts";
import { serverEnv } from "./steps.ts";
import { DENO, fixed, type Proc, ROOT, spawnServer, timed } from "./util.ts";

export interface FleetPollSize {
  devices: number;
  rate: number;
  seconds: number;
  generators: number;
  ddiShare: number;
  /** Requests open at once per generator process (see benchFleetPolls). */
  inFlight: number;
}

export interface FleetPollFigures extends FleetPollSize {
  replicas: number;
  seedMs: number;
  due: number;
  sent: number;
  /** Due by the window's end, not sent by then. */
  notSent: number;
  ok: number;
  /** Answers (of any status) that arrived in the measured window, per second. */
  achievedRps: number;
  failed: Record<string, number>;
  /** From when each request was due / from when it was sent. */
  p50: number;
  p99: number;
  serviceP50: number;
  serviceP99: number;
  /** CPU seconds in the measured window, by who spent them; `machine` is all of the machine's busy time. */
  cpu: { generator: number; servers: number; postgres: number; machine: number; cores: number };
}

const TICKS = 100; // USER_HZ: /proc's CPU times are in 1/100 s on Linux

/** utime + stime (+ reaped children's with `children`) of a process, in seconds; 0 when it is gone. */
function cpuOf(pid: number, children = false): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    const own = Number(f[11]) + Number(f[12]);
    return (children ? own + Number(f[13]) + Number(f[14]) : own) / TICKS;
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

export async function benchFleetPolls(
  tmp: string,
  size: FleetPollSize,
  say: (s: string) => void,
): Promise<FleetPollFigures> {
  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  const postmaster = Number((await Deno.readTextFile(`${pg.dataDir}/postmaster.pid`)).split("\n")[0]);
  const secret = crypto.randomUUID().replaceAll("-", "");
  const replicas = 2;
  const servers: Proc[] = [];
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
    const seed = await timed(() => seedPolledFleet(url, size.devices, secret));

    say(
      `F. ${size.rate}/s for ${size.seconds} s (${size.generators} generator processes, ${
        Math.round(size.ddiShare * 100)
      } % DDI polls) through ${replicas} replicas`,
    );
    const warmUpMs = Math.min(5000, Math.max(1000, size.seconds * 100));
    const startAt = Date.now() + 1500; // the generators' start-up
    const measureAt = startAt + warmUpMs;
    const perProcess = size.rate / size.generators;
    const config: PollLoadConfig = {
      urls: servers.map((s) => s.url),
      rate: perProcess,
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
      postgres: postgresCpu(postmaster),
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
      ...size,
      replicas,
      seedMs: seed.ms,
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
      cpu: {
        generator: after.generator - before.generator,
        servers: after.servers - before.servers,
        postgres: after.postgres - before.postgres,
        machine: after.machine - before.machine,
        cores: navigator.hardwareConcurrency,
      },
    };
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** Answers in the measured window that were not 2xx, and requests that failed there (network errors, timeouts). */
export const fleetPollFailures = (f: FleetPollFigures) => Object.values(f.failed).reduce((a, b) => a + b, 0);

/** The rows of docs/PERFORMANCE.md's results. */
export function fleetPollRows(f: FleetPollFigures): [string, string, string, string][] {
  const n = (x: number) => Math.round(x).toLocaleString("en");
  const errors = fleetPollFailures(f);
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
  ];
}
