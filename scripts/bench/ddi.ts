/**
 * hawkBit DDI (docs/REQUIREMENTS.md §18) beside §6: polls by `connections` devices against §6 check-ins by as many, on
 * the same server in the same run (each device one connection's loop, the two loops taken in turn, twice, so drift of
 * the machine falls on both), every device holding an open action (a poll resolves the firmware and links its
 * deployment, as in the field while a rollout runs); and the requests of one whole DDI cycle as SWUpdate makes it.
 */
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { bytesSource } from "../../testing/files.ts";
import { DdiDevice, linkedAction } from "../../testing/ddi.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { ADMIN, serverEnv } from "./steps.ts";
import { type LoadResult, loadResult, spawnServer } from "./util.ts";

const KEY = serverEnv("").DEVICE_API_KEY;
const VERSION = { app: "2.4.1", os: "5.10.0", channels: ["1.2", "1.2"] };

export interface DdiFigures {
  checkin: LoadResult;
  poll: LoadResult;
  /** The requests of one cycle: poll, configData, deployment, feedback, HEAD and GET of the artifact, ..., poll. */
  cycle: { requests: number; ms: number; steps: string[] };
  /** Failed answers during the measured loops, by loop and status ("poll 503"). */
  failed: Record<string, number>;
}

/** `n` devices each calling `request(i)` back to back for `seconds`; failed answers counted by status in `failures`. */
async function loop(
  seconds: number,
  n: number,
  request: (i: number) => Promise<Response>,
  failures: Record<string, number>,
  what: string,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0, non2xx = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        const res = await request(i);
        await res.arrayBuffer();
        if (!res.ok) {
          non2xx++;
          const key = `${what} ${res.status}`;
          failures[key] = (failures[key] ?? 0) + 1;
        }
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }));
  return loadResult(latencies, started, errors, non2xx);
}

/** Two results of one kind as one (requests and time summed; the worse p99). */
const both = (a: LoadResult, b: LoadResult, seconds: number): LoadResult => ({
  requests: a.requests + b.requests,
  rps: (a.requests + b.requests) / (2 * seconds),
  p50: Math.max(a.p50, b.p50),
  p99: Math.max(a.p99, b.p99),
  errors: a.errors + b.errors,
  non2xx: a.non2xx + b.non2xx,
});

/** One device through a whole cycle, the requests SWUpdate's suricatta makes, counted. */
async function cycle(url: string): Promise<DdiFigures["cycle"]> {
  const dev = new DdiDevice(url, "ddi-cycle", `GatewayToken ${KEY}`);
  const steps: string[] = [];
  const step = async <T>(name: string, call: () => Promise<T>) => (steps.push(name), await call());
  const started = performance.now();
  const poll = await step("poll", () => dev.poll());
  await step("PUT configData", () => dev.configData({ board: "bench", revision: "1" }));
  const id = linkedAction(poll, "deploymentBase");
  if (id === null) throw new Error("the cycle's device was offered nothing");
  const deployment = await step("GET deploymentBase", () => dev.call("GET", `/deploymentBase/${id}`));
  const href: string = deployment.json.deployment.chunks[0].artifacts[0]._links.download.href;
  await step("feedback proceeding (download)", () => dev.feedback(id, "proceeding", "none", ["Downloading"]));
  await step("HEAD artifact", () => dev.call("HEAD", href));
  await step("GET artifact", () => dev.call("GET", href));
  await step("feedback proceeding (installing)", () => dev.feedback(id, "proceeding", "none", ["Installing"]));
  await step("feedback closed+success (after the reboot)", () => dev.feedback(id, "closed", "success"));
  const last = await step("poll", () => dev.poll());
  if (last.json._links.deploymentBase) throw new Error("the closed action is still linked");
  return { requests: steps.length, ms: performance.now() - started, steps };
}

/** `engineEnv`: {DATABASE_URL} for PostgreSQL, empty for SQLite. */
export async function benchDdi(
  tmp: string,
  seconds: number,
  connections: number,
  engineEnv: Record<string, string> = {},
): Promise<DdiFigures> {
  const dataDir = await Deno.makeTempDir({ dir: tmp, prefix: "ddi-" });
  const srv = await spawnServer("server/main.ts", { ...serverEnv(dataDir), LOG_LEVEL: "quiet", ...engineEnv });
  try {
    const api = new ApiClient({ baseUrl: srv.url });
    const { token } = await api.login(ADMIN.email, ADMIN.password);
    const signedIn = new ApiClient({ baseUrl: srv.url, token: () => token, uploadFetch: fixedLengthFetch });
    const fw = await signedIn.uploadFirmware(bytesSource("fw-ddi-bench.xz", xzBytes("bench ".repeat(10_000))));
    const managed = (await signedIn.listDeviceTypes()).find((d) => d.name.startsWith("jeecee_baby_"))!;
    await signedIn.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });

    const devices = Array.from(
      { length: connections },
      (_, i) => new DdiDevice(srv.url, `ddi-${i}`, `GatewayToken ${KEY}`),
    );
    const checkinBody = JSON.stringify({ versionInfo: VERSION });
    const checkinHeaders = { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" };
    const pollHeaders = { Authorization: `GatewayToken ${KEY}`, Accept: "application/json" };
    const checkin = (i: number) =>
      fetch(`${srv.url}/api/v1/device/chk-${i}/checkin`, {
        method: "POST",
        headers: checkinHeaders,
        body: checkinBody,
      });
    const poll = (i: number) => fetch(devices[i].base, { headers: pollHeaders });
    // Registered first (and each DDI device's action opened), then warmed up.
    const warmUp: Record<string, number> = {};
    await loop(1, connections, checkin, warmUp, "check-in");
    await loop(1, connections, poll, warmUp, "poll");
    const failed: Record<string, number> = {};
    const c1 = await loop(seconds, connections, checkin, failed, "check-in");
    const p1 = await loop(seconds, connections, poll, failed, "poll");
    const c2 = await loop(seconds, connections, checkin, failed, "check-in");
    const p2 = await loop(seconds, connections, poll, failed, "poll");
    return { checkin: both(c1, c2, seconds), poll: both(p1, p2, seconds), cycle: await cycle(srv.url), failed };
  } finally {
    await srv.stop();
  }
}

/** The rows of docs/PERFORMANCE.md's results. */
export function ddiRows(f: DdiFigures, connections: number, engine = ""): [string, string, string, string][] {
  const ratio = f.checkin.rps > 0 ? f.poll.rps / f.checkin.rps : NaN;
  return [
    [
      `${engine}DDI poll by ${connections} devices vs §6 check-in, same run (each device with an open action)`,
      `${f.poll.rps.toFixed(0)} / ${f.checkin.rps.toFixed(0)} req/s = ${
        ratio.toFixed(2)
      } (p99 ${f.poll.p99} / ${f.checkin.p99} ms, ${
        f.poll.non2xx + f.poll.errors + f.checkin.non2xx + f.checkin.errors
      } failed${
        Object.keys(f.failed).length ? `: ${Object.entries(f.failed).map(([k, n]) => `${n}× ${k}`).join(", ")}` : ""
      })`,
      "≥ 0.8×",
      ratio >= 0.8 ? "yes" : "**no**",
    ],
    [
      `${engine}DDI: requests of a whole cycle (SWUpdate: poll to installed)`,
      `${f.cycle.requests} requests, ${f.cycle.ms.toFixed(0)} ms (${f.cycle.steps.join(", ")})`,
      "measured",
      "-",
    ],
  ];
}
