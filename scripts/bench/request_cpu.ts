/**
 * The server's CPU time per request over a socket (utime + stime of the server process, every thread, from
 * /proc/<pid>/stat), GET devices (middle page, cache warm, 10 connections) against a bare Hono route answering the
 * same bytes: steadier on a loaded machine than req/s, which also measures how the scheduler shares the cores
 * between the server and the load generator.
 *   deno run -A scripts/bench/request_cpu.ts [seconds=4] [sqlite|postgres|both] [tree=.]
 * `tree`: another checkout whose server/main.ts to run (a before/after comparison in one run).
 */
import { ApiClient } from "../../shared/client.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { ADMIN, seededEnv } from "./steps.ts";
import { load, processCpuSeconds, spawnServer } from "./util.ts";

const seconds = Number(Deno.args[0] ?? 4);
const engines = (Deno.args[1] ?? "both") === "both" ? ["sqlite", "postgres"] : [Deno.args[1]];
const tree = new URL(`${Deno.args[2] ?? "."}/`, `file://${Deno.cwd()}/`).pathname;
const N = 20_000;
const path = `/api/v1/devices?page=${Math.floor((Math.ceil(N / 25) - 1) / 2)}&rowsPerPage=25`;
/** utime + stime of a process in µs. */
const cpuMicros = (pid: number) => processCpuSeconds(pid) * 1e6;

/** Server CPU µs per request and req/s of a load on `url`. */
async function measure(pid: number, url: string, headers: Record<string, string> = {}) {
  await load(url, 1, 10, headers); // warm-up
  const before = cpuMicros(pid);
  const r = await load(url, seconds, 10, headers);
  const used = cpuMicros(pid) - before;
  if (r.errors || r.non2xx) throw new Error(`${url}: ${JSON.stringify(r)}`);
  return { cpu: used / r.requests, rps: r.rps };
}

const tmp = await Deno.makeTempDir({ prefix: "request-cpu-bench-" });
try {
  for (const engine of engines) {
    const dataDir = `${tmp}/${engine}`;
    await Deno.mkdir(dataDir);
    await using pg = engine === "postgres" ? await startPostgres() : undefined;
    const env = await seededEnv(dataDir, pg, N, tree);
    const figures: string[] = [];
    for (const guard of ["1", "0"]) {
      const srv = await spawnServer("server/main.ts", { ...env, CONNECTION_GUARD: guard }, tree);
      try {
        const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
        const auth = { Authorization: `Bearer ${token}` };
        const body = await (await fetch(`${srv.url}${path}`, { headers: auth })).text();
        const page = await measure(srv.pid, `${srv.url}${path}`, auth);
        if (guard === "1") {
          const file = await Deno.makeTempFile({ suffix: ".json" });
          await Deno.writeTextFile(file, body);
          const bare = await spawnServer("scripts/bench/bare_server.ts", { BODY_FILE: file });
          try {
            const base = await measure(bare.pid, `${bare.url}${path}`, auth);
            figures.push(`bare Hono ${base.cpu.toFixed(0)} µs (${base.rps.toFixed(0)} req/s)`);
          } finally {
            await bare.stop();
            await Deno.remove(file);
          }
        }
        figures.push(`guard ${guard === "1" ? "on" : "off"} ${page.cpu.toFixed(0)} µs (${page.rps.toFixed(0)} req/s)`);
      } finally {
        await srv.stop();
      }
    }
    console.log(`${engine} (load ${Deno.loadavg()[0].toFixed(1)}), server CPU per GET devices: ${figures.join("; ")}`);
  }
} finally {
  await Deno.remove(tmp, { recursive: true });
}
