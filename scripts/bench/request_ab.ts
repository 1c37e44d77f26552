/**
 * Two (or more) builds compared in one run, on a machine whose load moves: a server of each checkout is up at once
 * (SQLite), and they are loaded in turn, in short slices and many rounds (the order reversed every other round), so
 * that whatever else runs falls on each alike. Prints, per build, the median server CPU µs per request (utime + stime
 * of the server process from /proc/<pid>/stat, every thread) with each round's figure, and the median req/s. `what`:
 * - `page`: GET devices, the middle page of 20,000 devices, cache warm, an admin's session (10 connections);
 * - `404`: an unknown API route (10 connections);
 * - `checkin`: quiet §6 check-ins (DEVICE_AUTH=shared, the same version info) by 200 known devices, one connection
 *   each, as `deno task bench --polls` sends them (scripts/bench/device_polls.ts);
 * - `poll`: quiet hawkBit DDI polls by the same 200 devices (GatewayToken), one connection each.
 *   deno run -A scripts/bench/request_ab.ts <rounds> <seconds> <what> <CONNECTION_GUARD 1|0> <tree|bare> <tree>...
 * A tree is a checkout (e.g. `git archive <commit> | tar -x -C /tmp/before`). `bare` (not for 404): bare Hono answering
 * the first tree's bytes (scripts/bench/bare_server.ts: its page; bare_device_server.ts: its check-in and poll), loaded
 * in the same rounds.
 * With AB_ENGINE=postgres (checkin and poll only) each tree's server has a database of its own on one throwaway
 * cluster, and each build's line also gives PostgreSQL's CPU per request: its backends' (the processes of that
 * database, from /proc) plus the cluster's shared processes' share (WAL writer, checkpointer, …: split by requests).
 */
import { ApiClient } from "../../shared/client.ts";
import { ADMIN, seededEnv, serverEnv } from "./steps.ts";
import { load, type LoadResult, processCpuSeconds, ROOT, spawnServer } from "./util.ts";
import { checkins, polls, registerDevices } from "./device_polls.ts";
import { startPostgres, type TestPostgres } from "../../testing/postgres.ts";

const [rounds, seconds, what, guard, ...trees] = Deno.args;
const KINDS = ["page", "404", "checkin", "poll"];
if (!trees.length || !KINDS.includes(what) || !["0", "1"].includes(guard)) {
  console.error("usage: request_ab.ts <rounds> <seconds> <page|404|checkin|poll> <1|0> <tree|bare> <tree>...");
  Deno.exit(2);
}
const devicePolls = what === "checkin" || what === "poll";
if (trees.includes("bare") && (what === "404" || trees[0] === "bare")) {
  console.error("bare: for page, checkin and poll, after a tree (its answers are the bare route's bytes).");
  Deno.exit(2);
}
const onPostgres = Deno.env.get("AB_ENGINE") === "postgres";
if (onPostgres && !devicePolls) {
  console.error("AB_ENGINE=postgres: for checkin and poll only.");
  Deno.exit(2);
}
const N = 20_000;
const DEVICES = 200;
const page = `/api/v1/devices?page=${Math.floor((Math.ceil(N / 25) - 1) / 2)}&rowsPerPage=25`;
/** utime + stime of a process in µs. */
const cpuMicros = (pid: number) => processCpuSeconds(pid) * 1e6;

interface Under {
  tree: string;
  srv: Awaited<ReturnType<typeof spawnServer>>;
  dataDir: string;
  run: (seconds: number) => Promise<LoadResult>;
  cpu: number[];
  rps: number[];
  p99: number[];
  /** PostgreSQL: the database's name and its CPU µs per request each round. */
  database?: string;
  dbCpu: number[];
}

/** PostgreSQL's processes (the postmaster's children) as pid → their command line. */
function clusterProcesses(pg: TestPostgres): Map<number, string> {
  const postmaster = Number(Deno.readTextFileSync(`${pg.dataDir}/postmaster.pid`).split("\n")[0]);
  const out = new Map<number, string>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== postmaster) continue;
      out.set(Number(e.name), Deno.readTextFileSync(`/proc/${e.name}/cmdline`).replaceAll("\0", " "));
    } catch { /* gone */ }
  }
  return out;
}

/** CPU µs so far of the cluster's processes: per database (its backends), and of the shared ones (no database). */
function clusterCpu(pg: TestPostgres, databases: string[]): { of: Map<string, number>; shared: number } {
  const of = new Map(databases.map((d) => [d, 0]));
  let shared = 0;
  for (const [pid, cmd] of clusterProcesses(pg)) {
    let cpu = 0;
    try {
      cpu = cpuMicros(pid);
    } catch { /* gone */ }
    const db = databases.find((d) => cmd.includes(` ${d} `));
    if (db) of.set(db, of.get(db)! + cpu);
    else shared += cpu;
  }
  return { of, shared };
}

const servers: Under[] = [];
let answers: { checkin: string; poll: string } | undefined;
/** The first tree's GET devices page (what bare Hono sends for `page`). */
let pageBody: string | undefined;
const pg = onPostgres ? await startPostgres() : undefined;
try {
  for (const tree of trees) {
    const dataDir = await Deno.makeTempDir({ prefix: "request-ab-" });
    const s: Under = { tree, dataDir, srv: undefined!, run: undefined!, cpu: [], rps: [], p99: [], dbCpu: [] };
    if (tree === "bare" && !devicePolls) {
      await Deno.writeTextFile(`${dataDir}/page.json`, pageBody!);
      s.srv = await spawnServer("scripts/bench/bare_server.ts", { BODY_FILE: `${dataDir}/page.json` }, ROOT);
    } else if (tree === "bare") {
      await Deno.writeTextFile(`${dataDir}/checkin.json`, answers!.checkin);
      await Deno.writeTextFile(`${dataDir}/poll.json`, answers!.poll);
      s.srv = await spawnServer("scripts/bench/bare_device_server.ts", {
        CHECKIN_FILE: `${dataDir}/checkin.json`,
        POLL_FILE: `${dataDir}/poll.json`,
      }, ROOT);
    } else {
      const root = new URL(`${tree}/`, `file://${Deno.cwd()}/`).pathname;
      const env: Record<string, string> = devicePolls
        ? { ...serverEnv(dataDir), LOG_LEVEL: "quiet" }
        : await seededEnv(dataDir, undefined, N, root);
      if (pg) {
        env.DATABASE_URL = await pg.createDatabase();
        s.database = new URL(env.DATABASE_URL).pathname.slice(1);
      }
      s.srv = await spawnServer("server/main.ts", { ...env, CONNECTION_GUARD: guard }, root);
    }
    servers.push(s);
    const base = s.srv.url;
    if (devicePolls) {
      if (tree !== "bare") {
        const got = await registerDevices(base, DEVICES);
        answers ??= got;
        if (got.checkin !== answers.checkin || got.poll !== answers.poll) {
          console.warn(`${tree} answers other bytes than ${trees[0]}: ${got.checkin} ${got.poll}`);
        }
      }
      s.run = (sec) => what === "checkin" ? checkins(base, sec, DEVICES, DEVICES) : polls(base, sec, DEVICES, DEVICES);
    } else if (tree === "bare") {
      s.run = (sec) => load(`${base}${page}`, sec, 10, {});
    } else {
      const { token } = await new ApiClient({ baseUrl: base }).login(ADMIN.email, ADMIN.password);
      const url = what === "404" ? `${base}/api/v1/no-such-route` : `${base}${page}`;
      const headers: Record<string, string> = what === "404" ? {} : { Authorization: `Bearer ${token}` };
      if (what === "page") {
        const body = await (await fetch(url, { headers })).text();
        pageBody ??= body;
        if (body !== pageBody) console.warn(`${tree} answers another page than ${trees[0]}`);
      }
      s.run = (sec) => load(url, sec, 10, headers);
    }
    await s.run(1); // warm-up
  }
  for (let r = 0; r < Number(rounds); r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      const before = cpuMicros(s.srv.pid);
      const dbs = servers.flatMap((x) => x.database ? [x.database] : []);
      const dbBefore = pg && s.database ? clusterCpu(pg, dbs) : undefined;
      const res = await s.run(Number(seconds));
      if (res.errors || res.non2xx) throw new Error(`${s.tree}: ${JSON.stringify(res)}`);
      s.cpu.push((cpuMicros(s.srv.pid) - before) / res.requests);
      if (pg && dbBefore) {
        const after = clusterCpu(pg, dbs);
        const own = after.of.get(s.database!)! - dbBefore.of.get(s.database!)!;
        s.dbCpu.push((own + after.shared - dbBefore.shared) / res.requests);
      }
      s.rps.push(res.rps);
      s.p99.push(res.p99);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `${what}${pg ? " on PostgreSQL" : ""}, CONNECTION_GUARD=${guard} (load ${
      Deno.loadavg().map((x) => x.toFixed(1)).join(" ")
    }):`,
  );
  const bare = servers.find((s) => s.tree === "bare");
  for (const s of servers) {
    const ratio = bare && s !== bare ? `, ${(median(s.rps) / median(bare.rps)).toFixed(2)}× bare's req/s` : "";
    console.log(
      `  ${s.tree}: ${median(s.cpu).toFixed(0)} µs of server CPU per request [${
        s.cpu.map((x) => x.toFixed(0)).join(" ")
      }]${
        s.dbCpu.length
          ? `, ${median(s.dbCpu).toFixed(0)} µs of PostgreSQL's [${s.dbCpu.map((x) => x.toFixed(0)).join(" ")}]`
          : ""
      }, ${median(s.rps).toFixed(0)} req/s [${s.rps.map((x) => x.toFixed(0)).join(" ")}]${ratio}, p99 ${
        median(s.p99)
      } ms`,
    );
  }
} finally {
  for (const s of servers) {
    await s.srv?.stop();
    await Deno.remove(s.dataDir, { recursive: true });
  }
  await pg?.[Symbol.asyncDispose]();
}
