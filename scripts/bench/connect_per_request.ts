/**
 * A new connection for every request (`Connection: close`, as a device behind a proxy that does not keep connections
 * alive would poll): what the connection front costs per accept, its forms side by side in one run. One server per
 * CONNECTION_GUARD value given (1: Deno's server per connection; relay: the relay front; 0: Deno.serve alone), loaded
 * in turn in short slices, the order reversed every other round; `clients` clients each connect, send GET /healthz
 * and read to the end, again and again. Prints per form the median server CPU µs per request and req/s.
 *   deno run -A scripts/bench/connect_per_request.ts <rounds> <seconds> <clients> <guard>...
 */
import { serverEnv } from "./steps.ts";
import { processCpuSeconds, spawnServer } from "./util.ts";

const [rounds, seconds, clients, ...guards] = Deno.args;
if (!guards.length || guards.some((g) => !["0", "1", "relay"].includes(g))) {
  console.error("usage: connect_per_request.ts <rounds> <seconds> <clients> <0|1|relay>...");
  Deno.exit(2);
}
const request = new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

async function oneRequest(port: number, buf: Uint8Array): Promise<boolean> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(request);
    let first = true;
    let ok = false;
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) return ok;
      if (first) ok = buf[9] === 50; // "HTTP/1.1 2"
      first = false;
    }
  } finally {
    conn.close();
  }
}

async function load(port: number, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  await Promise.all(Array.from({ length: Number(clients) }, async () => {
    const buf = new Uint8Array(4096);
    while (performance.now() < end) if (await oneRequest(port, buf)) done++;
  }));
  return done;
}

const servers = [];
for (const guard of guards) {
  const dataDir = await Deno.makeTempDir({ prefix: "connect-per-request-" });
  const srv = await spawnServer("server/main.ts", {
    ...serverEnv(dataDir),
    LOG_LEVEL: "quiet",
    CONNECTION_GUARD: guard,
  });
  servers.push({ guard, srv, port: Number(new URL(srv.url).port), cpu: [] as number[], rps: [] as number[] });
}
try {
  for (const s of servers) await load(s.port, 500);
  for (let round = 0; round < Number(rounds); round++) {
    for (const s of round % 2 ? [...servers].reverse() : servers) {
      const before = processCpuSeconds(s.srv.pid);
      const started = performance.now();
      const n = await load(s.port, Number(seconds) * 1000);
      const ms = performance.now() - started;
      s.cpu.push(Math.round((processCpuSeconds(s.srv.pid) - before) * 1e6 / n));
      s.rps.push(Math.round(n / ms * 1000));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const load1 = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  console.log(`GET /healthz, a connection per request, ${clients} clients (load ${load1}):`);
  for (const s of servers) {
    console.log(
      `  CONNECTION_GUARD=${s.guard}: ${median(s.cpu)} µs of server CPU per request [${s.cpu.join(" ")}], ` +
        `${median(s.rps)} req/s [${s.rps.join(" ")}]`,
    );
  }
} finally {
  for (const s of servers) await s.srv.stop();
}
