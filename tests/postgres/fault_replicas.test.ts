/**
 * Stores fail fast, whatever the failure (docs/REQUIREMENTS.md §19), on two replicas of one database under mixed traffic (signed-in
 * console reads and writes; the device API's check-ins, config, status reports and firmware downloads): PostgreSQL stopped, frozen (SIGSTOP on the postmaster and
 * every backend: connections stay open, nothing answers) and back. Every answer is a success or `503 unavailable`
 * within 2 s, never a hang, never a 500; both replicas are back within 2 s of the database's return; a healthy burst
 * of 50 requests across the two gives no 503. The figures are printed; the bound asserted is LIMIT_MS (the 2 s of the
 * contract plus a margin for the loaded test machine: docs/DECISIONS.md, "Stores fail fast").
 */
import assert from "node:assert/strict";
import { startPostgres } from "../../testing/postgres.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";
import { bytesSource } from "../../testing/files.ts";
import { xzOfSize } from "../../testing/xz_fixtures.ts";
import { startBucket } from "../../testing/s3.ts";

const LIMIT_MS = 2_500;
/** A request without an answer by then is a hang. */
const HANG_MS = 8_000;
const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0"] };

interface Answer {
  what: string;
  replica: number;
  status: number | "hang" | "error";
  ms: number;
  /** When it was answered (performance.now()). */
  at: number;
  error?: string;
}

const device = { "content-type": "application/json", authorization: `Bearer ${DEVICE_API_KEY}` };
let names = 0;

/** The mixed traffic: what a console and a fleet send (each call a fresh request). */
function calls(
  token: string,
  firmwareId = "",
): [string, (srv: TestServer, signal: AbortSignal) => Promise<Response>][] {
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
    [
      "POST check-in",
      (s, signal) =>
        s.fetch(`/api/v1/device/dev-${names++ % 20}/checkin`, {
          method: "POST",
          signal,
          headers: device,
          body: JSON.stringify({ versionInfo: VERSION }),
        }),
    ],
    ["GET config", (s, signal) => s.fetch(`/api/v1/device/dev-${names++ % 20}/config`, { headers: device, signal })],
    [
      "GET firmware",
      (s, signal) => s.fetch(`/api/v1/device/dev-${names++ % 20}/firmware`, { headers: device, signal }),
    ],
    [
      "POST status",
      (s, signal) =>
        s.fetch(`/api/v1/device/dev-${names++ % 20}/status`, {
          method: "POST",
          signal,
          headers: device,
          body: JSON.stringify({ firmwareId, state: "downloading", progress: 10 }),
        }),
    ],
  ];
}

async function send(
  servers: TestServer[],
  replica: number,
  [what, call]: [string, (srv: TestServer, signal: AbortSignal) => Promise<Response>],
): Promise<Answer> {
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
function traffic(servers: TestServer[], token: string, firmwareId: string, workers: number) {
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

/** Polls both replicas with a check-in until each has answered 200: ms from `since` until the later of the two. */
async function recovery(servers: TestServer[], since: number): Promise<number> {
  const backAt = await Promise.all(servers.map(async (_, replica) => {
    const checkin = calls("")[3];
    for (;;) {
      const a = await send(servers, replica, checkin);
      if (a.status === 200) return a.at;
      if (performance.now() - since > 15_000) return Infinity;
      await new Promise((r) => setTimeout(r, 25));
    }
  }));
  return Math.max(...backAt) - since;
}

/** Every answer a success or 503 unavailable within LIMIT_MS: the figures printed, then asserted. */
function judge(phase: string, answers: Answer[], servers: TestServer[]) {
  const failed = answers.filter((a) => a.status === 503);
  const ok = answers.filter((a) => typeof a.status === "number" && a.status < 300);
  const slowest = failed.reduce<Answer | null>((w, a) => (!w || a.ms > w.ms ? a : w), null);
  const worst = slowest?.ms ?? 0;
  console.log(
    `${phase}: ${answers.length} answers, ${ok.length} successes, ${failed.length} × 503 (slowest ${
      worst.toFixed(0)
    } ms, ${slowest?.what ?? "-"})`,
  );
  const bad = answers.filter((a) =>
    !(typeof a.status === "number" && (a.status < 300 || (a.status === 503 && a.error === "unavailable")))
  );
  if (bad.length) {
    const logs = servers.map((s, i) =>
      `replica ${i}:\n${s.output().split("\n").filter((l) => !/Z (GET|POST) /.test(l)).join("\n")}`
    );
    assert.fail(
      `${phase}: ${bad.length} answers neither a success nor 503 unavailable, first ${
        JSON.stringify(bad.slice(0, 3))
      }\n${logs.join("\n")}`,
    );
  }
  const slow = failed.filter((a) => a.ms > LIMIT_MS);
  assert.deepEqual(slow, [], `${phase}: 503s slower than ${LIMIT_MS} ms`);
  return { failed: failed.length, worst };
}

Deno.test("fault: PostgreSQL stopped, frozen and back under traffic on two replicas", async (t) => {
  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  // Firmware files in one bucket, so that either replica serves the download.
  await using bucket = await startBucket();
  const servers = await Promise.all([0, 1].map(() => startServer({ bucket, env: { DATABASE_URL: url } })));
  await using _ = {
    [Symbol.asyncDispose]: async () => void await Promise.all(servers.map((s) => s[Symbol.asyncDispose]())),
  };
  const api = await servers[0].login();
  const { token } = api;
  const fw = await api.uploadFirmware(bytesSource("fault.xz", xzOfSize(64 << 10)));
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });
  for (let i = 0; i < 20; i++) {
    const a = await send(servers, i % 2, ["check-in", (s) =>
      s.fetch(`/api/v1/device/dev-${i}/checkin`, {
        method: "POST",
        headers: device,
        body: JSON.stringify({ versionInfo: VERSION }),
      })]);
    assert.equal(a.status, 200);
  }

  await t.step("healthy: 50 concurrent requests across the two replicas, no 503", async () => {
    const list = calls(token, fw._id);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send(servers, i % 2, list[i % list.length])),
    );
    const slowest = Math.max(...answers.map((a) => a.ms));
    console.log(`healthy race: 50 answers, slowest ${slowest.toFixed(0)} ms`);
    assert.deepEqual(answers.filter((a) => typeof a.status !== "number" || a.status >= 300), []);
  });

  for (
    const [phase, fail, back] of [
      ["stopped", () => pg.stop(), () => pg.start()],
      ["frozen", () => pg.freeze(), () => pg.thaw()],
    ] as const
  ) {
    await t.step(`${phase}: every answer 503 within the limit or a success; back within it`, async () => {
      const load = traffic(servers, token, fw._id, 7);
      await new Promise((r) => setTimeout(r, 300));
      await fail();
      await new Promise((r) => setTimeout(r, 3_000));
      await back();
      const returned = performance.now();
      const recovered = await recovery(servers, returned);
      const answers = await load.stop();
      const { failed } = judge(phase, answers, servers);
      console.log(`${phase}: both replicas back ${recovered.toFixed(0)} ms after the database's return`);
      assert.ok(failed > 0, `${phase}: the fault was not seen`);
      assert.ok(recovered <= LIMIT_MS, `${phase}: back after ${recovered.toFixed(0)} ms`);
    });
  }

  await t.step("after: nothing lost, no 500 in either log", async () => {
    const res = await servers[1].fetch("/api/v1/devices?page=0&rowsPerPage=100", { token });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).total, 20);
    for (const srv of servers) {
      assert.doesNotMatch(srv.output(), / 500 /);
      assert.doesNotMatch(srv.output(), /Uncaught|"internal"/);
    }
  });
});
