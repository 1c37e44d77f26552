/**
 * Quiet polls against a bare route (issue 35): `devices` known devices (seen before, the same version info, nothing to
 * install), one connection each, polling back to back — §6 check-ins, then hawkBit DDI polls — on SQLite (one server)
 * and PostgreSQL (one server, then the check-ins spread over two replicas), and the same load against bare Hono routes
 * on the same Deno answering the same bytes (scripts/bench/bare_device_server.ts), measured half before and half after
 * the servers so the machine's drift falls on both. The load tool is autocannon in its own process
 * (scripts/bench/load.ts); the connections take the devices round-robin.
 */
import { startPostgres } from "../../testing/postgres.ts";
import { serverEnv } from "./steps.ts";
import { fixed, load, type LoadResult, type Proc, sequential, spawnServer } from "./util.ts";

const KEY = serverEnv("").DEVICE_API_KEY;
const VERSION = { app: "2.4.1", os: "5.10.0", channels: ["1.2", "1.2"] };
export const CHECKIN_BODY = JSON.stringify({ versionInfo: VERSION });
export const CHECKIN_HEADERS = { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" };
const POLL_HEADERS = { Authorization: `GatewayToken ${KEY}`, Accept: "application/json" };
export const checkinPath = (device: string) => `/api/v1/device/${device}/checkin`;
const pollPath = (device: string) => `/DEFAULT/controller/v1/${device}`;
export const device = (i: number | string) => `quiet-${i}`;

export interface DevicePollFigures {
  devices: number;
  seconds: number;
  bare: { checkin: LoadResult; poll: LoadResult; bytes: { checkin: number; poll: number } };
  sqlite: { checkin: LoadResult; poll: LoadResult };
  postgres: { checkin: LoadResult; poll: LoadResult; replicasCheckin: LoadResult };
  /** Answer sizes on PostgreSQL (the bare route answers SQLite's bytes). */
  postgresBytes: { checkin: number; poll: number };
}

/** `devices` devices checked in and polled once, so every later poll is quiet; one answer of each kind. */
export async function registerDevices(url: string, devices: number): Promise<{ checkin: string; poll: string }> {
  let checkin = "", poll = "";
  for (let i = 0; i < devices; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, devices - i) }, async (_, j) => {
      const c = await fetch(`${url}${checkinPath(device(i + j))}`, {
        method: "POST",
        headers: CHECKIN_HEADERS,
        body: CHECKIN_BODY,
      });
      const p = await fetch(`${url}${pollPath(device(i + j))}`, { headers: POLL_HEADERS });
      if (!c.ok || !p.ok) throw new Error(`registering ${device(i + j)}: ${c.status}, ${p.status}`);
      [checkin, poll] = [await c.text(), await p.text()];
    }));
  }
  // The answers of a quiet poll (the first ones wrote the device).
  const c = await fetch(`${url}${checkinPath(device(0))}`, {
    method: "POST",
    headers: CHECKIN_HEADERS,
    body: CHECKIN_BODY,
  });
  const p = await fetch(`${url}${pollPath(device(0))}`, { headers: POLL_HEADERS });
  [checkin, poll] = [await c.text(), await p.text()];
  return { checkin, poll };
}

export const checkins = (url: string, seconds: number, connections: number, devices: number) =>
  load(`${url}${checkinPath(device("[<device>]"))}`, seconds, connections, CHECKIN_HEADERS, [
    "--method",
    "POST",
    "--body",
    CHECKIN_BODY,
    "--devices",
    String(devices),
  ]);
export const polls = (url: string, seconds: number, connections: number, devices: number) =>
  load(`${url}${pollPath(device("[<device>]"))}`, seconds, connections, POLL_HEADERS, ["--devices", String(devices)]);

/** Results of loads run at the same time as one: requests and rates summed, the worse percentiles. */
function merged(parts: LoadResult[]): LoadResult {
  const requests = parts.reduce((n, p) => n + p.requests, 0);
  return {
    requests,
    rps: parts.reduce((n, p) => n + p.rps, 0),
    p50: Math.max(...parts.map((p) => p.p50)),
    p99: Math.max(...parts.map((p) => p.p99)),
    errors: parts.reduce((n, p) => n + p.errors, 0),
    non2xx: parts.reduce((n, p) => n + p.non2xx, 0),
  };
}

export async function benchDevicePolls(
  tmp: string,
  seconds: number,
  devices: number,
  say: (s: string) => void,
  /** Each load's warm-up (connections, JIT) before it is measured; 0: none (--quick). */
  warm = Math.max(1, Math.round(seconds / 5)),
): Promise<DevicePollFigures> {
  const procs: Proc[] = [];
  await using pg = await startPostgres();
  try {
    const spawn = async (script: string, env: Record<string, string>) => {
      const p = await spawnServer(script, env);
      procs.push(p);
      return p;
    };
    const server = async (name: string, env: Record<string, string> = {}) => {
      const dataDir = `${tmp}/polls-${name}`;
      await Deno.mkdir(dataDir, { recursive: true });
      return await spawn("server/main.ts", { ...serverEnv(dataDir), LOG_LEVEL: "quiet", ...env });
    };
    say(`P. ${devices} devices registered on SQLite and PostgreSQL (2 replicas)`);
    const sqlite = await server("sqlite");
    const databaseUrl = await pg.createDatabase();
    const replicas = [
      await server("pg-a", { DATABASE_URL: databaseUrl }),
      await server("pg-b", { DATABASE_URL: databaseUrl }),
    ];
    const answers = await registerDevices(sqlite.url, devices);
    const pgAnswers = await registerDevices(replicas[0].url, devices);
    const files = { checkin: `${tmp}/polls-checkin.json`, poll: `${tmp}/polls-poll.json` };
    await Deno.writeTextFile(files.checkin, answers.checkin);
    await Deno.writeTextFile(files.poll, answers.poll);
    const bare = await spawn("scripts/bench/bare_device_server.ts", {
      CHECKIN_FILE: files.checkin,
      POLL_FILE: files.poll,
    });
    const half = Math.max(1, Math.round(seconds / 2));
    const warmUp = async (run: () => Promise<LoadResult>) => {
      if (warm > 0) await run();
    };

    say(`P. quiet check-ins and DDI polls by ${devices} devices, ${seconds} s each: bare Hono (first half)`);
    await warmUp(() => checkins(bare.url, warm, devices, devices));
    const bareCheckin1 = await checkins(bare.url, half, devices, devices);
    await warmUp(() => polls(bare.url, warm, devices, devices));
    const barePoll1 = await polls(bare.url, half, devices, devices);
    say("P. SQLite");
    await warmUp(() => checkins(sqlite.url, warm, devices, devices));
    const sqliteCheckin = await checkins(sqlite.url, seconds, devices, devices);
    await warmUp(() => polls(sqlite.url, warm, devices, devices));
    const sqlitePoll = await polls(sqlite.url, seconds, devices, devices);
    say("P. PostgreSQL, one server");
    await warmUp(() => checkins(replicas[0].url, warm, devices, devices));
    const pgCheckin = await checkins(replicas[0].url, seconds, devices, devices);
    await warmUp(() => polls(replicas[0].url, warm, devices, devices));
    const pgPoll = await polls(replicas[0].url, seconds, devices, devices);
    say("P. PostgreSQL, check-ins through 2 replicas");
    const each = Math.ceil(devices / 2);
    await warmUp(async () => merged(await Promise.all(replicas.map((r) => checkins(r.url, warm, each, devices)))));
    const pgReplicas = merged(await Promise.all(replicas.map((r) => checkins(r.url, seconds, each, devices))));
    // --quick (no warm-up) checks the wiring only: the bare route's first half stands for both.
    if (warm > 0) say("P. bare Hono (second half)");
    const bareCheckin2 = warm > 0 ? await checkins(bare.url, half, devices, devices) : bareCheckin1;
    const barePoll2 = warm > 0 ? await polls(bare.url, half, devices, devices) : barePoll1;
    return {
      devices,
      seconds,
      bare: {
        checkin: sequential(bareCheckin1, bareCheckin2),
        poll: sequential(barePoll1, barePoll2),
        bytes: {
          checkin: new TextEncoder().encode(answers.checkin).length,
          poll: new TextEncoder().encode(answers.poll).length,
        },
      },
      sqlite: { checkin: sqliteCheckin, poll: sqlitePoll },
      postgres: { checkin: pgCheckin, poll: pgPoll, replicasCheckin: pgReplicas },
      postgresBytes: {
        checkin: new TextEncoder().encode(pgAnswers.checkin).length,
        poll: new TextEncoder().encode(pgAnswers.poll).length,
      },
    };
  } finally {
    for (const p of procs) await p.stop();
  }
}

/** Failed answers and errors under load. */
export const devicePollFailures = (f: DevicePollFigures) =>
  [
    f.bare.checkin,
    f.bare.poll,
    f.sqlite.checkin,
    f.sqlite.poll,
    f.postgres.checkin,
    f.postgres.poll,
    f.postgres.replicasCheckin,
  ]
    .reduce((n, r) => n + r.non2xx + r.errors, 0);

/** The rows of docs/PERFORMANCE.md's results. */
export function devicePollRows(f: DevicePollFigures): [string, string, string, string][] {
  const ok = (met: boolean) => met ? "yes" : "**no**";
  const ratio = (a: number, b: number) => b > 0 ? a / b : NaN;
  const row = (engine: string, what: string, r: LoadResult, bare: LoadResult, bytes: number, own: number) => {
    const x = ratio(r.rps, bare.rps);
    return [
      `${engine}: quiet ${what} by ${f.devices} devices (one connection each), req/s vs bare Hono answering the same ${bytes} bytes${
        own === bytes ? "" : ` (${engine} answers ${own})`
      }; p99`,
      `${fixed(r.rps, 0)} / ${fixed(bare.rps, 0)} = ${fixed(x)}; p99 ${r.p99} ms (bare ${bare.p99} ms), ${
        r.non2xx + r.errors
      } failed`,
      "≥ 0.3×; p99 ≤ 50 ms",
      ok(x >= 0.3 && r.p99 <= 50),
    ] as [string, string, string, string];
  };
  const x = ratio(f.postgres.replicasCheckin.rps, f.sqlite.checkin.rps);
  return [
    row("SQLite", "§6 check-ins", f.sqlite.checkin, f.bare.checkin, f.bare.bytes.checkin, f.bare.bytes.checkin),
    row("SQLite", "DDI polls", f.sqlite.poll, f.bare.poll, f.bare.bytes.poll, f.bare.bytes.poll),
    row(
      "PostgreSQL",
      "§6 check-ins",
      f.postgres.checkin,
      f.bare.checkin,
      f.bare.bytes.checkin,
      f.postgresBytes.checkin,
    ),
    row("PostgreSQL", "DDI polls", f.postgres.poll, f.bare.poll, f.bare.bytes.poll, f.postgresBytes.poll),
    [
      `PostgreSQL with 2 replicas vs SQLite (one server): quiet §6 check-ins by ${f.devices} devices (half on each replica), req/s`,
      `${fixed(f.postgres.replicasCheckin.rps, 0)} / ${fixed(f.sqlite.checkin.rps, 0)} = ${
        fixed(x)
      }; p99 ${f.postgres.replicasCheckin.p99} / ${f.sqlite.checkin.p99} ms, ${
        f.postgres.replicasCheckin.non2xx + f.postgres.replicasCheckin.errors
      } failed`,
      "≥ 0.8×",
      ok(x >= 0.8),
    ],
  ];
}
