/**
 * The fault-cycle harness (docs/DECISIONS.md, "Frozen PostgreSQL: recovery"): two replicas on one PostgreSQL under the
 * fault tests' mixed traffic (testing/fault_traffic.ts), through many short cycles of freeze/thaw (SIGSTOP/SIGCONT)
 * and stop/start; per cycle and replica, how long after the database's return its first check-in answered 200. A
 * cycle slower than --slow-ms prints what the database was waiting on right after the return (pg_stat_activity,
 * pg_locks, the listening socket's accept queue and the connections on the port, read at --probe-at-ms).
 *
 *   deno run -A scripts/fault_cycles.ts [--cycles 20] [--kinds frozen,stopped] [--fault-ms 2500|1000-3500]
 *                                       [--busy 0] [--slow-ms 1000] [--probe-at-ms 800] [--workers 7] [--tls]
 * --fault-ms min-max draws each fault's length between the two. --busy N starts N busy loops (CPU hogs) for the run, to shift the timing as a loaded or faster machine would.
 */
import { parseArgs } from "node:util";
import { pgQuery, startPostgres } from "../testing/postgres.ts";
import { startBucket } from "../testing/s3.ts";
import { type Answer, faultReplicas, recovery, traffic } from "../testing/fault_traffic.ts";

const { values: opt } = parseArgs({
  args: Deno.args,
  options: {
    cycles: { type: "string", default: "20" },
    kinds: { type: "string", default: "frozen,stopped" },
    "fault-ms": { type: "string", default: "2500" },
    busy: { type: "string", default: "0" },
    "slow-ms": { type: "string", default: "1000" },
    "probe-at-ms": { type: "string", default: "800" },
    workers: { type: "string", default: "7" },
    tls: { type: "boolean", default: false },
  },
});
const [faultMin, faultMax = faultMin] = opt["fault-ms"]!.split("-").map(Number);
const cycles = Number(opt.cycles), slowMs = Number(opt["slow-ms"]);
const probeAt = Number(opt["probe-at-ms"]), workers = Number(opt.workers);
const kinds = opt.kinds!.split(",") as ("frozen" | "stopped")[];

const hogs = Array.from(
  { length: Number(opt.busy) },
  () => new Deno.Command("sh", { args: ["-c", "while :; do :; done"], stdout: "null", stderr: "null" }).spawn(),
);

await using pg = await startPostgres({ tls: opt.tls });
const url = await pg.createDatabase();
await using bucket = await startBucket();
await using replicas = await faultReplicas(url, bucket, { POSTGRES_TRACE: "1" });
const { servers, api, fw } = replicas;
try {
  const results: { kind: string; ms: number[] }[] = [];
  for (let c = 0; c < cycles; c++) {
    for (const kind of kinds) {
      const load = traffic(servers, api.token, fw._id, workers);
      await new Promise((r) => setTimeout(r, 300));
      const logFrom = servers.map((s) => s.output().length);
      const faultAt = performance.now(), faultAtIso = new Date().toISOString();
      await (kind === "frozen" ? pg.freeze() : pg.stop());
      const faultTook = performance.now() - faultAt;
      const faultMs = faultMin + Math.random() * (faultMax - faultMin);
      await new Promise((r) => setTimeout(r, faultMs));
      const queue = kind === "frozen" ? await acceptQueue(pg.port) : "";
      await (kind === "frozen" ? pg.thaw() : pg.start());
      const returned = performance.now(), returnedAt = new Date().toISOString();
      const snapshot = diagnose(pg.port, pg.adminUrl, returned + probeAt);
      const ms = await recovery(servers, returned);
      const answers = await load.stop();
      const seen = await snapshot;
      const bad = answers.filter((a) => !(typeof a.status === "number" && (a.status < 300 || a.status === 503)));
      const slow503 = answers.filter((a) => a.status === 503 && a.ms > 2_500);
      const slowest503 = answers.reduce<Answer | null>((w, a) => a.status === 503 && (!w || a.ms > w.ms) ? a : w, null);
      console.log(
        `${c} ${kind} ${faultMs.toFixed(0)} ms: back ${
          ms.map((m) => m.toFixed(0)).join(" / ")
        } ms; ${answers.length} answers, ${answers.filter((a) => a.status === 503).length} × 503 (slowest ${
          slowest503
            ? `${slowest503.ms.toFixed(0)} ms, ${slowest503.what}, sent ${
              (slowest503.at - slowest503.ms - faultAt).toFixed(0)
            } ms after the fault began; the fault took ${faultTook.toFixed(0)} ms`
            : "-"
        }), accept queue at the return ${queue}, ${slow503.length} 503s > 2.5 s, ${bad.length} other`,
      );
      if (bad.length) console.log("  other:", JSON.stringify(bad.slice(0, 3)));
      // The replicas' trace since the fault: probes and store calls slower than 1 s.
      const traced = servers.flatMap((s, i) =>
        s.output().slice(logFrom[i]).split("\n").filter((l) => l.startsWith("POSTGRES_TRACE")).map((l) =>
          `    replica ${i}: ${l}`
        )
      );
      if (Math.max(...ms) > slowMs) console.log(`  returned at ${returnedAt}\n${seen}`);
      if (traced.length && (Math.max(...ms) > slowMs || traced.some((l) => l.includes("slow store call")))) {
        console.log(`  fault at ${faultAtIso}, returned at ${returnedAt}; trace:\n${traced.join("\n")}`);
      }
      results.push({ kind, ms });
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  for (const kind of kinds) {
    const all = results.filter((r) => r.kind === kind).flatMap((r) => r.ms).sort((a, b) => a - b);
    const at = (q: number) => all[Math.min(all.length - 1, Math.floor(q * all.length))].toFixed(0);
    console.log(
      `${kind}: ${all.length} replica recoveries: median ${at(0.5)} ms, p90 ${at(0.9)}, max ${at(1)}; over 2000 ms: ${
        all.filter((m) => m > 2000).length
      }`,
    );
  }
} finally {
  for (const h of hogs) h.kill("SIGKILL");
}

async function ss(args: string[]): Promise<string> {
  const out = await new Deno.Command("ss", { args, stdout: "piped", stderr: "piped" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** The listening socket's accept queue: "waiting/backlog". */
async function acceptQueue(port: number): Promise<string> {
  const [, recvQ, sendQ] = (await ss(["-tlnH", `sport = :${port}`])).trim().split(/\s+/);
  return `${recvQ}/${sendQ}`;
}

/** What PostgreSQL and the port look like at `at` (performance.now()): text to print when the cycle was slow. */
async function diagnose(port: number, adminUrl: string, at: number): Promise<string> {
  await new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));
  const listen = await ss(["-tln", `sport = :${port}`]);
  const conns = await ss(["-tnH", `( sport = :${port} or dport = :${port} )`]);
  const states = new Map<string, number>();
  for (const line of conns.trim().split("\n").filter(Boolean)) {
    const [state, , , local] = line.split(/\s+/);
    const key = `${state} ${local.endsWith(`:${port}`) ? "server side" : "client side"}`;
    states.set(key, (states.get(key) ?? 0) + 1);
  }
  // Each server-side connection: its queues and the process title of the backend holding it (a backend still in
  // start-up is not in pg_stat_activity).
  const titled: string[] = [];
  for (const line of (await ss(["-tnpH", `sport = :${port}`])).trim().split("\n").filter(Boolean)) {
    const pid = /pid=(\d+)/.exec(line)?.[1];
    const title = pid
      ? await Deno.readTextFile(`/proc/${pid}/cmdline`).then((t) => t.replaceAll("\0", " ").trim(), () => "?")
      : "";
    const [, recvQ, sendQ, , peer] = line.split(/\s+/);
    titled.push(`    recv ${recvQ} send ${sendQ} peer ${peer} pid ${pid}: ${title}`);
  }
  let activity = "", locks = "";
  try {
    const rows = await pgQuery(
      adminUrl,
      `SELECT pid, application_name, state, wait_event_type, wait_event, (now() - backend_start)::text AS age,
         (now() - state_change)::text AS in_state, left(query, 80) AS query
       FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY backend_start`,
    );
    activity = rows.map((r) =>
      `    ${r.pid} ${r.application_name} ${r.state} ${r.wait_event_type ?? ""}/${
        r.wait_event ?? ""
      } age ${r.age} in-state ${r.in_state} ${r.query}`
    ).join("\n");
    const l = await pgQuery(
      adminUrl,
      "SELECT pid, locktype, mode, granted, objid FROM pg_locks WHERE locktype = 'advisory' OR NOT granted",
    );
    locks = l.map((r) => `    ${r.pid} ${r.locktype} ${r.mode} granted=${r.granted} ${r.objid ?? ""}`).join("\n");
  } catch (err) {
    activity = `    (not read: ${err})`;
  }
  return `  at +${probeAt} ms: listen ${listen.trim().split("\n").slice(1).join(" | ")}\n  sockets ${
    JSON.stringify(Object.fromEntries(states))
  }\n  server-side connections:\n${titled.join("\n")}\n  backends:\n${activity}\n  advisory / waiting locks:\n${locks}`;
}
