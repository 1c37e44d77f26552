/**
 * One process of the fleet simulation's load generator (scripts/bench/fleet_polls.ts), open-loop:
 *   deno run -A scripts/bench/poll_load.ts '<PollLoadConfig as JSON>'
 * Request k is due at startAt + k / rate; it goes to a random device of the seeded fleet (its own token), a §6
 * check-in or, for the share `ddiShare`, a hawkBit DDI poll, to the replicas in turn, over keep-alive connections
 * (testing/http1.ts: ~0.09 ms of CPU per request here, fetch ~0.15). At
 * most `maxInFlight` requests are open at once: when the servers fall behind, due requests wait here and their latency
 * counts from the time they were due (no coordinated omission); those still waiting at the end are "not sent". What is
 * counted is what happens in the measured window [measureAt, measureAt + seconds): the answers (and failures) that
 * arrive in it, whenever their requests were due; before it the load warms up (connections, JIT). Prints one JSON line
 * (PollLoadResult).
 */
import { POLLED_VERSION, polledDeviceId, polledDeviceToken } from "../../testing/postgres_bench.ts";
import { Http1Error, Http1Pool } from "../../testing/http1.ts";

export interface PollLoadConfig {
  urls: string[];
  /** Requests per second of this process. */
  rate: number;
  /** Epoch ms: the warm-up starts, then the measured window [measureAt, measureAt + seconds * 1000). */
  startAt: number;
  measureAt: number;
  seconds: number;
  devices: number;
  secret: string;
  ddiShare: number;
  tenant: string;
  maxInFlight: number;
}

export interface PollLoadResult {
  /** Requests due in the measured window. */
  due: number;
  /** Requests sent in the measured window. */
  sent: number;
  /** Due before the window's end but not sent by then (the backlog the generator was left with). */
  notSent: number;
  /** 2xx answers that arrived in the window. */
  ok: number;
  /** Failed answers and errors in the window, by kind ("checkin 503", "poll timeout", "checkin TypeError"). */
  failed: Record<string, number>;
  /** Of the answers in the window: latency from when each request was due (ms, one decimal). */
  latencies: number[];
  /** The same from when it was sent. */
  serviceLatencies: number[];
  /** Each second from startAt on: how late the next request to send was then (ms; 0: none waiting). */
  lag: number[];
}

const config: PollLoadConfig = JSON.parse(Deno.args[0]);
const checkinBody = new TextEncoder().encode(JSON.stringify({ versionInfo: POLLED_VERSION }));
const result: PollLoadResult = {
  due: 0,
  sent: 0,
  notSent: 0,
  ok: 0,
  failed: {},
  latencies: [],
  serviceLatencies: [],
  lag: [],
};
const endAt = config.measureAt + config.seconds * 1000;
const interval = 1000 / config.rate;
let inFlight = 0;
let next = 0; // the next request's number (due at startAt + next * interval)

const fail = (kind: string) => result.failed[kind] = (result.failed[kind] ?? 0) + 1;

const inWindow = (t: number) => t >= config.measureAt && t < endAt;

const pools = new Map(config.urls.map((url) => [url, new Http1Pool(url)]));

async function send(k: number, due: number) {
  const i = Math.floor(Math.random() * config.devices);
  const id = polledDeviceId(i);
  const token = polledDeviceToken(config.secret, i);
  const url = config.urls[k % config.urls.length];
  const pool = pools.get(url)!;
  const ddi = Math.random() < config.ddiShare;
  const what = ddi ? "poll" : "checkin";
  const request = ddi
    ? pool.encode("GET", `/${config.tenant}/controller/v1/${id}`, [
      `authorization: TargetToken ${token}`,
      "accept: application/json",
    ])
    : pool.encode("POST", `/api/v1/device/${id}/checkin`, [
      `authorization: Bearer ${token}`,
      "content-type: application/json",
    ], checkinBody);
  const sentAt = Date.now();
  if (inWindow(sentAt)) result.sent++;
  try {
    const res = await pool.send(request, 30_000);
    const at = Date.now();
    if (!inWindow(at)) return;
    if (res.status >= 200 && res.status < 300) result.ok++;
    else fail(`${what} ${res.status}`);
    result.latencies.push(Math.round((at - due) * 10) / 10);
    result.serviceLatencies.push(Math.round((at - sentAt) * 10) / 10);
  } catch (e) {
    if (inWindow(Date.now())) fail(`${what} ${e instanceof Http1Error ? `${e.kind} (${e.message})` : String(e)}`);
  }
}

const pending = new Set<Promise<void>>();
await new Promise((r) => setTimeout(r, Math.max(0, config.startAt - Date.now())));
while (true) {
  const now = Date.now();
  // Every request due by now, as far as the in-flight cap allows; the rest wait for the next turn. After the window's
  // end one last pass sends those due before it (else the requests due within the last timer tick would count as not
  // sent: the generator's own tick, not the servers).
  while (inFlight < config.maxInFlight) {
    const due = config.startAt + next * interval;
    if (due > now || due >= endAt) break;
    inFlight++;
    const p = send(next++, due).finally(() => {
      inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  }
  while (now - config.startAt >= result.lag.length * 1000) {
    result.lag.push(Math.max(0, now - (config.startAt + next * interval)));
  }
  if (now >= endAt) break;
  await new Promise((r) => setTimeout(r, 1));
}
// Due by the window's end but never sent: the generator (or the servers behind it) could not keep up.
result.notSent = Math.max(0, Math.ceil((endAt - config.startAt) / interval) - next);
result.due = Math.ceil((endAt - config.startAt) / interval) - Math.ceil((config.measureAt - config.startAt) / interval);
await Promise.all(pending);
for (const pool of pools.values()) pool.close();
console.log(JSON.stringify(result));
