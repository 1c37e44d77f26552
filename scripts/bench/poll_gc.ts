/**
 * What V8's collector does to a server under quiet check-ins by 200 devices (issue 35; docs/DECISIONS.md, "PostgreSQL's
 * quiet check-in tail"): a server on SQLite or on a throwaway PostgreSQL cluster with the server's V8 flags and any
 * given, 200 registered devices checking in back to back (autocannon, as `deno task bench --polls` sends them), then
 *   - by default: the rate, the server's CPU per check-in, the latency percentiles to the maximum, and from
 *     `--trace-gc-nvp` the scavenges' total pause and each full collection's pause with its ephemeron phase and heap;
 *   - with `--survivors`: V8's sampling heap profiler (through the inspector) counting only what a full collection freed
 *     or left, i.e. the objects that outlived a scavenge, per check-in by allocation site.
 *   deno run -A scripts/bench/poll_gc.ts <sqlite|postgres> <seconds> [--survivors] [--v8-flag ...]
 */
import autocannon from "autocannon";
import { startPostgres } from "../../testing/postgres.ts";
import { SERVER_V8_FLAGS } from "../../server/v8_flags.ts";
import { serverEnv } from "./steps.ts";
import { CHECKIN_BODY, CHECKIN_HEADERS, checkinPath, device, registerDevices } from "./device_polls.ts";
import { DENO, freePort, processCpuSeconds, waitUntilUp } from "./util.ts";

/** A Chrome DevTools protocol session with the server's inspector. */
class Inspector {
  private next = 0;
  private readonly waiting = new Map<number, (result: unknown) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.onmessage = (m) => {
      const data = JSON.parse(m.data);
      this.waiting.get(data.id)?.(data.result);
      this.waiting.delete(data.id);
    };
  }
  static async open(origin: string): Promise<Inspector> {
    const [target] = await (await fetch(`${origin}/json/list`)).json();
    const ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve) => ws.onopen = resolve);
    return new Inspector(ws);
  }
  call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = ++this.next;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }
  close() {
    this.ws.close();
  }
}

const [engine, seconds] = Deno.args;
const survivors = Deno.args.includes("--survivors");
const extra = Deno.args.filter((a) => a.startsWith("--") && a !== "--survivors");
if (!["sqlite", "postgres"].includes(engine) || !(Number(seconds) > 0)) {
  console.error("usage: poll_gc.ts <sqlite|postgres> <seconds> [--survivors] [--v8-flag ...]");
  Deno.exit(2);
}
const DEVICES = 200;

await using pg = engine === "postgres" ? await startPostgres() : null;
const dir = await Deno.makeTempDir({ prefix: "poll-gc-" });
const port = freePort();
const inspect = freePort();
const flags = [SERVER_V8_FLAGS, ...extra, ...(survivors ? [] : ["--trace-gc-nvp"])].join(",");
const child = new Deno.Command(DENO, {
  args: [
    "run",
    "-A",
    ...(survivors ? [`--inspect=127.0.0.1:${inspect}`] : []),
    `--v8-flags=${flags}`,
    "server/main.ts",
  ],
  env: {
    ...serverEnv(dir),
    LOG_LEVEL: "quiet",
    HOST: "127.0.0.1",
    PORT: String(port),
    ...(pg ? { DATABASE_URL: await pg.createDatabase() } : {}),
  },
  stdout: "piped",
  stderr: "inherit",
}).spawn();
let trace = "";
const reading = (async () => {
  for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) trace += text;
})();
const url = `http://127.0.0.1:${port}`;
await waitUntilUp(url);
await registerDevices(url, DEVICES);

let n = 0;
const load = (duration: number) =>
  autocannon({
    url: `${url}${checkinPath(device(0))}`,
    duration,
    connections: DEVICES,
    method: "POST",
    headers: CHECKIN_HEADERS,
    body: CHECKIN_BODY,
    requests: [{
      setupRequest: (req: { path?: string }) => ({ ...req, path: checkinPath(device(n++ % DEVICES)) }),
    }],
  });

await load(2); // warm-up
const inspector = survivors ? await Inspector.open(`http://127.0.0.1:${inspect}`) : null;
if (inspector) {
  await inspector.call("HeapProfiler.enable");
  await inspector.call("HeapProfiler.collectGarbage");
  await inspector.call("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  });
}
trace = "";
const cpuBefore = processCpuSeconds(child.pid);
const r = await load(Number(seconds));
const cpu = (processCpuSeconds(child.pid) - cpuBefore) / r.requests.total * 1e6;
const l = r.latency;
console.log(
  `${engine} ${extra.join(",") || "(server flags)"}: ${r.requests.average.toFixed(0)} check-ins/s, ${
    cpu.toFixed(0)
  } µs of server CPU each; ms p50 ${l.p50} p90 ${l.p90} p97.5 ${l.p97_5} p99 ${l.p99} p99.9 ${l.p99_9} max ${l.max}`,
);
if (inspector) {
  const { profile } = await inspector.call("HeapProfiler.stopSampling") as { profile: { head: SampleNode } };
  printSurvivors(profile.head, r.requests.total);
  inspector.close();
}
child.kill("SIGTERM");
await child.status;
await reading;
if (!survivors) printCollections(trace);
await Deno.remove(dir, { recursive: true });

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

/** Bytes per check-in by allocation site (the innermost frame), the largest first. */
function printSurvivors(head: SampleNode, requests: number) {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: SampleNode) => {
    const f = node.callFrame;
    const site = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(node_modules\/\.deno\/)?/, "")}:${
      f.lineNumber + 1
    }`;
    if (node.selfSize > 0) {
      total += node.selfSize;
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    }
    for (const c of node.children) walk(c);
  };
  walk(head);
  console.log(`outlived a scavenge: ${(total / requests).toFixed(0)} bytes per check-in (sampled); by site:`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(bytes / requests).toFixed(0).padStart(6)}  ${site}`);
  }
}

/** The scavenges' total pause; each full collection's pause, its ephemeron phase and the heap before and after. */
function printCollections(text: string) {
  const events: Record<string, number | string>[] = [];
  for (const line of text.split("\n")) {
    const at = line.indexOf("GC: {");
    if (at < 0) continue;
    try {
      events.push(JSON.parse(line.slice(at + 4)));
    } catch { /* a line cut by the pipe */ }
  }
  const scavenges = events.filter((e) => e.gc === "s");
  const full = events.filter((e) => e.gc === "mc");
  const ms = (v: unknown) => Number(v).toFixed(0);
  console.log(
    `scavenges: ${scavenges.length}, ${ms(scavenges.reduce((a, e) => a + Number(e.pause), 0))} ms in all; ` +
      `full collections: ${full.length}: ` +
      full.map((e) =>
        `${ms(e.pause)} ms (ephemerons ${ms(e["mark.ephemeron.linear"])}; ${ms(Number(e.start_object_size) / 1e6)} → ${
          ms(Number(e.end_object_size) / 1e6)
        } MB)`
      ).join(", "),
  );
}
