/**
 * Two (or more) builds compared in one run, on a machine whose load moves: a server of each checkout is up at once
 * (SQLite, 20,000 devices each), and they are loaded in turn, in short slices and many rounds (the order reversed every
 * other round), so that whatever else runs falls on each alike. Prints, per build, the median server CPU µs per request
 * (utime + stime of the server process from /proc/<pid>/stat, every thread) with each round's figure, and the median
 * req/s. `what`: `page` (GET devices, the middle page, cache warm, an admin's session) or `404` (an unknown API route).
 *   deno run -A scripts/bench/request_ab.ts <rounds> <seconds> <page|404> <CONNECTION_GUARD 1|0> <tree> <tree>...
 * A tree is a checkout (e.g. `git archive <commit> | tar -x -C /tmp/before`, with node_modules copied in).
 */
import { ApiClient } from "../../shared/client.ts";
import { ADMIN, seededEnv } from "./steps.ts";
import { load, processCpuSeconds, spawnServer } from "./util.ts";

const [rounds, seconds, what, guard, ...trees] = Deno.args;
if (!trees.length || !["page", "404"].includes(what) || !["0", "1"].includes(guard)) {
  console.error("usage: request_ab.ts <rounds> <seconds> <page|404> <1|0> <tree> <tree>...");
  Deno.exit(2);
}
const N = 20_000;
const page = `/api/v1/devices?page=${Math.floor((Math.ceil(N / 25) - 1) / 2)}&rowsPerPage=25`;
/** utime + stime of a process in µs. */
const cpuMicros = (pid: number) => processCpuSeconds(pid) * 1e6;

const servers = [];
try {
  for (const tree of trees) {
    const root = new URL(`${tree}/`, `file://${Deno.cwd()}/`).pathname;
    const dataDir = await Deno.makeTempDir({ prefix: "request-ab-" });
    const env = await seededEnv(dataDir, undefined, N, root);
    const srv = await spawnServer("server/main.ts", { ...env, CONNECTION_GUARD: guard }, root);
    const s = {
      tree,
      srv,
      dataDir,
      url: "",
      headers: {} as Record<string, string>,
      cpu: [] as number[],
      rps: [] as number[],
    };
    servers.push(s);
    const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
    s.url = what === "404" ? `${srv.url}/api/v1/no-such-route` : `${srv.url}${page}`;
    s.headers = what === "404" ? {} : { Authorization: `Bearer ${token}` };
    await load(s.url, 1, 10, s.headers); // warm-up
  }
  for (let r = 0; r < Number(rounds); r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      const before = cpuMicros(s.srv.pid);
      const res = await load(s.url, Number(seconds), 10, s.headers);
      if (res.errors) throw new Error(`${s.tree}: ${JSON.stringify(res)}`);
      s.cpu.push((cpuMicros(s.srv.pid) - before) / res.requests);
      s.rps.push(res.rps);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`${what}, CONNECTION_GUARD=${guard} (load ${Deno.loadavg()[0].toFixed(1)}):`);
  for (const s of servers) {
    console.log(
      `  ${s.tree}: ${median(s.cpu).toFixed(0)} µs of server CPU per request [${
        s.cpu.map((x) => x.toFixed(0)).join(" ")
      }], ${median(s.rps).toFixed(0)} req/s`,
    );
  }
} finally {
  for (const s of servers) {
    await s.srv.stop();
    await Deno.remove(s.dataDir, { recursive: true });
  }
}
