/**
 * The mixed traffic of the fault tests on two replicas (tests/postgres/fault_replicas.test.ts) and of the fault-cycle
 * harness (scripts/fault_cycles.ts): what a console and a fleet send, each call a fresh request, every answer kept with
 * its status and time.
 */
import assert from "node:assert/strict";
import type { Sql } from "../server/db/postgres/open.ts";
import { bytesSource } from "./files.ts";
import type { TestBucket } from "./s3.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "./server.ts";
import { xzOfSize } from "./xz_fixtures.ts";

/** A request without an answer by then is a hang. */
export const HANG_MS = 8_000;
export const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0"] };

export interface Answer {
  what: string;
  replica: number;
  status: number | "hang" | "error";
  ms: number;
  /** When it was answered (performance.now()). */
  at: number;
  error?: string;
}

export type Call = [string, (srv: TestServer, signal: AbortSignal) => Promise<Response>];

export const deviceHeaders = { "content-type": "application/json", authorization: `Bearer ${DEVICE_API_KEY}` };
let names = 0;

/** The mixed traffic: what a console and a fleet send (each call a fresh request); devices dev-0 … dev-19. */
export function calls(token: string, firmwareId = ""): Call[] {
  return [
    ["GET devices", (s, signal) => s.fetch("/api/v1/devices?page=0&rowsPerPage=5", { token, signal })],
    ["GET product types", (s, signal) => s.fetch("/api/v1/product_types", { token, signal })],
    [
      "POST product type",
      (s, signal) =>
        s.fetch("/api/v1/product_types", {
          method: "POST",
          token,
          signal,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: `Type ${Deno.pid}-${++names}` }),
        }),
    ],
    ["POST check-in", (s, signal) => checkin(s, `dev-${names++ % 20}`, signal)],
    [
      "GET config",
      (s, signal) => s.fetch(`/api/v1/device/dev-${names++ % 20}/config`, { headers: deviceHeaders, signal }),
    ],
    [
      "GET firmware",
      (s, signal) => s.fetch(`/api/v1/device/dev-${names++ % 20}/firmware`, { headers: deviceHeaders, signal }),
    ],
    [
      "POST status",
      (s, signal) =>
        s.fetch(`/api/v1/device/dev-${names++ % 20}/status`, {
          method: "POST",
          signal,
          headers: deviceHeaders,
          body: JSON.stringify({ firmwareId, state: "downloading", progress: 10 }),
        }),
    ],
  ];
}

export const checkin = (s: TestServer, name: string, signal?: AbortSignal) =>
  s.fetch(`/api/v1/device/${name}/checkin`, {
    method: "POST",
    signal,
    headers: deviceHeaders,
    body: JSON.stringify({ versionInfo: VERSION }),
  });

export async function send(servers: TestServer[], replica: number, [what, call]: Call): Promise<Answer> {
  const started = performance.now();
  const signal = AbortSignal.timeout(HANG_MS);
  try {
    const res = await call(servers[replica], signal);
    const body = await res.text();
    const answer: Answer = { what, replica, status: res.status, ms: performance.now() - started, at: 0 };
    if (res.status === 503) answer.error = JSON.parse(body).error;
    else if (res.status >= 300) answer.error = body.slice(0, 200);
    answer.at = performance.now();
    return answer;
  } catch (err) {
    const status = signal.aborted ? "hang" : "error";
    return { what, replica, status, ms: performance.now() - started, at: performance.now(), error: String(err) };
  }
}

/** `workers` loops of calls, round-robin over the replicas, until stop() resolves; every answer kept. */
export function traffic(servers: TestServer[], token: string, firmwareId: string, workers: number) {
  const answers: Answer[] = [];
  let running = true;
  const list = calls(token, firmwareId);
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i++) {
      answers.push(await send(servers, i % servers.length, list[i % list.length]));
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

/**
 * Polls every replica with a check-in until each has answered 200: per replica, ms from `since` until its first 200
 * (Infinity after `giveUpMs`).
 */
export function recovery(servers: TestServer[], since: number, giveUpMs = 15_000): Promise<number[]> {
  return Promise.all(servers.map(async (_, replica) => {
    const call = calls("")[3];
    for (;;) {
      const a = await send(servers, replica, call);
      if (a.status === 200) return a.at - since;
      if (performance.now() - since > giveUpMs) return Infinity;
      await new Promise((r) => setTimeout(r, 25));
    }
  }));
}

/**
 * Two replicas of the server on the database `url`, firmware files in `bucket`, signed in; a firmware of 64 KiB the
 * managed device type's default; devices dev-0 … dev-19 checked in. Disposing it stops both.
 */
export async function faultReplicas(url: string, bucket: TestBucket, env: Record<string, string> = {}) {
  const servers = await Promise.all([0, 1].map(() => startServer({ bucket, env: { DATABASE_URL: url, ...env } })));
  const stop = async () => void await Promise.all(servers.map((s) => s[Symbol.asyncDispose]()));
  try {
    const api = await servers[0].login();
    const fw = await api.uploadFirmware(bytesSource("fault.xz", xzOfSize(64 << 10)));
    const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });
    for (let i = 0; i < 20; i++) {
      assert.equal(
        (await send(servers, i % 2, ["check-in", (s, signal) => checkin(s, `dev-${i}`, signal)])).status,
        200,
      );
    }
    return { servers, api, fw, [Symbol.asyncDispose]: stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Ends `sql`'s connection in the turn a statement is written (the driver's onexecute hook), then asks `next` until it
 * is answered (the pool hands calls to the ended connection until its socket has closed: CONNECTION_DESTROYED at
 * once, retried for up to 5 s): its answer and the ms it took.
 */
export async function answerAfterEndedMidWrite<T>(sql: Sql, next: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const ended = await sql.unsafe("SELECT 2", [], {
    onexecute: (c: { terminate(): void }) => (c.terminate(), true),
  } as never).then(() => "answered", (err) => err.code);
  assert.equal(ended, "CONNECTION_DESTROYED");
  const started = performance.now();
  for (;;) {
    const answer = await next().then((value) => ({ value }), (err) => {
      if (err.code !== "CONNECTION_DESTROYED" || performance.now() - started > 5_000) throw err;
      return new Promise<null>((r) => setTimeout(() => r(null), 20));
    });
    if (answer) return { value: answer.value, ms: performance.now() - started };
  }
}
