/**
 * Staged rollouts at fleet size (docs/REQUIREMENTS.md §13): a rollout of every device (100,000 in the full run), started and
 * widened to 100 %; then status reports from `concurrency` devices at once (each device reports downloading ->
 * installing -> installed, moving the counts), and GET rollouts/{id} with its counts, which are kept incrementally
 * (never counted per request). On SQLite (one server) and on PostgreSQL (two replicas sharing the reports).
 */
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { bytesSource } from "../../testing/files.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { seedPostgresDevices } from "../../testing/postgres_bench.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { ADMIN, DEVICE_KEY, seedDevices, serverEnv } from "./steps.ts";
import { load, type LoadResult, spawnServer, timed } from "./util.ts";

export interface RolloutFigures {
  engine: string;
  devices: number;
  replicas: number;
  startMs: number;
  /** The slowest advance (each counts the devices of the new stage once). */
  advanceMs: number;
  reports: { requests: number; rps: number; p50: number; p99: number; failed: number };
  get: LoadResult;
  /** GET me (auth and one indexed read, no counts) in the same run: what the machine gives any request now. */
  me: LoadResult;
}

const STATES = ["downloading", "installing", "installed"] as const;

/** `concurrency` devices reporting for `seconds`, spread over the servers: each goes through the three states. */
async function reportLoad(urls: string[], firmwareId: string, n: number, seconds: number, concurrency: number) {
  const latencies: number[] = [];
  let failed = 0;
  const until = performance.now() + seconds * 1000;
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    const url = urls[w % urls.length];
    while (performance.now() < until) {
      const k = next++;
      const device = `DEV-${String(Math.floor(k / 3) % n).padStart(6, "0")}`;
      const t = performance.now();
      const res = await fetch(`${url}/api/v1/device/${device}/status`, {
        method: "POST",
        headers: { authorization: `Bearer ${DEVICE_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ firmwareId, state: STATES[k % 3], progress: (k % 3) * 50 }),
      }).catch(() => null);
      latencies.push(performance.now() - t);
      if (!res || res.status !== 204) failed++;
      await res?.body?.cancel();
    }
  }));
  const secondsTaken = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => +latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1);
  return {
    requests: latencies.length,
    rps: latencies.length / secondsTaken,
    p50: pct(0.5),
    p99: pct(0.99),
    failed,
  };
}

export async function benchRollouts(
  engine: "sqlite" | "postgres",
  tmp: string,
  size: { devices: number; seconds: number; checkins: number },
  say: (s: string) => void,
): Promise<RolloutFigures> {
  const dataDirs = [`${tmp}/rollouts-${engine}-a`, `${tmp}/rollouts-${engine}-b`];
  for (const d of dataDirs) await Deno.mkdir(d, { recursive: true });
  await using pg = engine === "postgres" ? await startPostgres() : null;
  let extra: Record<string, string> = {};
  if (pg) {
    const url = await pg.createDatabase();
    extra = { DATABASE_URL: url };
  } else seedDevices(dataDirs[0], size.devices);
  const replicas = pg ? 2 : 1;
  const servers = [];
  for (let i = 0; i < replicas; i++) {
    servers.push(await spawnServer("server/main.ts", { ...serverEnv(dataDirs[i]), ...extra, LOG_LEVEL: "quiet" }));
  }
  try {
    if (pg) await seedPostgresDevices(extra.DATABASE_URL, 0, size.devices);
    const { token } = await new ApiClient({ baseUrl: servers[0].url }).login(ADMIN.email, ADMIN.password);
    const api = new ApiClient({
      baseUrl: servers[0].url,
      token: () => token,
      timeoutMs: 600_000,
      uploadFetch: fixedLengthFetch,
    });
    const fw = await api.uploadFirmware(bytesSource("bench-rollout.xz", xzBytes("bench rollout firmware")));
    const created = await api.createRollout({
      name: "bench",
      firmwareId: fw._id,
      productTypeId: null,
      stages: [1, 10, 50, 100],
      failureThreshold: 100,
      autoAdvance: false,
    });
    say(`R. ${engine}: start a rollout of ${size.devices} devices, advance to 100 %`);
    const start = await timed(() => api.rolloutAction(created._id, "start"));
    let advanceMs = 0;
    for (let stage = start.value.stage; stage < 3; stage++) {
      const a = await timed(() => api.rolloutAction(created._id, "advance"));
      advanceMs = Math.max(advanceMs, a.ms);
    }
    say(`R. ${engine}: status reports from ${size.checkins} concurrent devices (${replicas} replica(s))`);
    const reports = await reportLoad(servers.map((s) => s.url), fw._id, size.devices, size.seconds, size.checkins);
    say(`R. ${engine}: GET rollouts/{id} with its counts (after the writes settled; GET me beside it)`);
    await new Promise((r) => setTimeout(r, 2000));
    const auth = { Authorization: `Bearer ${token}` };
    const rolloutUrl = `${servers[0].url}/api/v1/rollouts/${created._id}`;
    await load(rolloutUrl, 1, 10, auth); // warm-up, not counted
    const me = await load(`${servers[0].url}/api/v1/me`, size.seconds, 10, auth);
    const get = await load(rolloutUrl, size.seconds, 10, auth);
    return { engine, devices: size.devices, replicas, startMs: start.ms, advanceMs, reports, get, me };
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** The rows of the results table. */
export function rolloutRows(figures: RolloutFigures[]): [string, string, string, string][] {
  const n = (x: number) => x.toLocaleString("en");
  return figures.flatMap((f): [string, string, string, string][] => {
    const where = f.engine === "postgres" ? `PostgreSQL, ${f.replicas} replicas` : "SQLite";
    return [
      [
        `${where}: rollout of ${n(f.devices)} devices: start (joins every device), slowest advance`,
        `${f.startMs.toFixed(0)} ms, ${f.advanceMs.toFixed(0)} ms`,
        "measured",
        "-",
      ],
      [
        `${where}: status reports during the rollout, ${
          f.reports.requests > 0 ? "" : "no "
        }reports/s from concurrent devices`,
        `${
          f.reports.rps.toFixed(0)
        } reports/s, p50 ${f.reports.p50} ms, p99 ${f.reports.p99} ms, ${f.reports.failed} failed`,
        "measured",
        f.reports.failed === 0 ? "-" : "**no**",
      ],
      [
        `${where}: GET rollouts/{id} with its counts at ${n(f.devices)} devices: req/s, p99`,
        `${f.get.rps.toFixed(0)} req/s, p99 ${f.get.p99} ms (GET me meanwhile: ${
          f.me.rps.toFixed(0)
        } req/s, p99 ${f.me.p99} ms)`,
        "p99 ≤ 10 ms",
        f.get.p99 <= 10 && f.get.non2xx === 0 ? "yes" : "**no**",
      ],
    ];
  });
}
