/**
 * One process of the fleet simulation's load generator (scripts/bench/fleet_polls.ts), open-loop:
 *   deno run -A scripts/bench/poll_load.ts '<PollLoadConfig as JSON>'
 * Request k is due at startAt + k / rate; it goes to a random device of the seeded fleet (its own token), a §6
 * check-in or, for the share `ddiShare`, a hawkBit DDI poll, to the replicas in turn, over keep-alive connections. At
 * most `maxInFlight` requests are open at once: when the servers fall behind, due requests wait here and their latency
 * counts from the time they were due (no coordinated omission); those still waiting at the end are "not sent". Requests
 * due before measureAt warm up (connections, JIT) and are not counted. Prints one JSON line (PollLoadResult).
 */
import { POLLED_VERSION, polledDeviceId, polledDeviceToken } from "../../testing/postgres_bench.ts";

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
  /** Due in the measured window. */
  due: number;
  sent: number;
  ok: number;
  /** Failed answers and errors by kind ("checkin 503", "poll timeout", "checkin TypeError"). */
  failed: Record<string, number>;
  /** Latency from when each request was due (ms, one decimal), of the measured ones that were answered. */
  latencies: number[];
  /** The same from when it was sent. */
  serviceLatencies: number[];
  /** Answered in the window (the achieved rate's numerator). */
  answeredInWindow: number;
}

const config: PollLoadConfig = JSON.parse(Deno.args[0]);
const checkinBody = JSON.stringify({ versionInfo: POLLED_VERSION });
const result: PollLoadResult = {
  due: 0,
  sent: 0,
  ok: 0,
  failed: {},
  latencies: [],
  serviceLatencies: [],
  answeredInWindow: 0,
};
const endAt = config.measureAt + config.seconds * 1000;
const interval = 1000 / config.rate;
let inFlight = 0;
let next = 0; // the next request's number (due at startAt + next * interval)

const fail = (kind: string) => result.failed[kind] = (result.failed[kind] ?? 0) + 1;

async function send(k: number, due: number) {
  const measured = due >= config.measureAt;
  const i = Math.floor(Math.random() * config.devices);
  const id = polledDeviceId(i);
  const token = polledDeviceToken(config.secret, i);
  const url = config.urls[k % config.urls.length];
  const ddi = Math.random() < config.ddiShare;
  const what = ddi ? "poll" : "checkin";
  const sentAt = Date.now();
  if (measured) result.sent++;
  try {
    const res = ddi
      ? await fetch(`${url}/${config.tenant}/controller/v1/${id}`, {
        headers: { authorization: `TargetToken ${token}`, accept: "application/json" },
        signal: AbortSignal.timeout(30_000),
      })
      : await fetch(`${url}/api/v1/device/${id}/checkin`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: checkinBody,
        signal: AbortSignal.timeout(30_000),
      });
    await res.arrayBuffer();
    const at = Date.now();
    if (!measured) return;
    if (res.ok) result.ok++;
    else fail(`${what} ${res.status}`);
    result.latencies.push(Math.round((at - due) * 10) / 10);
    result.serviceLatencies.push(Math.round((at - sentAt) * 10) / 10);
    if (at < endAt) result.answeredInWindow++;
  } catch (e) {
    if (measured) fail(`${what} ${e instanceof DOMException && e.name === "TimeoutError" ? "timeout" : String(e)}`);
  }
}

const pending = new Set<Promise<void>>();
await new Promise((r) => setTimeout(r, Math.max(0, config.startAt - Date.now())));
while (true) {
  const now = Date.now();
  if (now >= endAt) break;
  // Every request due by now, as far as the in-flight cap allows; the rest wait for the next turn.
  while (inFlight < config.maxInFlight) {
    const due = config.startAt + next * interval;
    if (due > now || due >= endAt) break;
    if (due >= config.measureAt) result.due++;
    inFlight++;
    const p = send(next++, due).finally(() => {
      inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  }
  await new Promise((r) => setTimeout(r, 1));
}
// Due in the window but never sent: the generator (or the servers behind it) could not keep up.
for (let k = next;; k++) {
  const due = config.startAt + k * interval;
  if (due >= endAt) break;
  if (due >= config.measureAt) result.due++;
}
await Promise.all(pending);
console.log(JSON.stringify(result));
