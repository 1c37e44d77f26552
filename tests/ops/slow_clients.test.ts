/**
 * Slow clients dropped in process (docs/REQUIREMENTS.md §19), against the real server with no proxy in front: 1,000 half-open
 * (slowloris) connections beside a client that gets its answers in well under a second, with the server's memory
 * growth measured; and, with short timeouts, a stalled header closed, the cap on half-open connections closing the
 * one waiting longest, a kept-alive connection's next header timed out, and idle kept-alive connections closed. The
 * short tests run on both forms of the front (CONNECTION_GUARD=1: Deno's server per connection; relay: the relay,
 * this Deno's fallback); a Deno whose internals changed fails the first form's (server/lib/direct_serve.ts).
 */
import assert from "node:assert/strict";
import net from "node:net";
import { startServer, type TestServer } from "../../testing/server.ts";

const te = new TextEncoder();

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

const portOf = (srv: TestServer) => Number(new URL(srv.url).port);

/** A connection that sent the start of a request's header and nothing more. */
async function halfOpen(port: number): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(te.encode("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow-0: 1\r\n"));
  return conn;
}

/** Resolves "closed" when the server closes the connection (EOF or reset), "open" after `ms`. */
async function closedWithin(conn: Deno.Conn, ms: number): Promise<"closed" | "open"> {
  const buf = new Uint8Array(4096);
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return "open";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = conn.read(buf).then((n) => (n === null ? "closed" : "data"), () => "closed");
    const result = await Promise.race([read, new Promise<"open">((r) => timer = setTimeout(() => r("open"), left))]);
    clearTimeout(timer);
    if (result !== "data") return result as "closed" | "open";
  }
}

/** One full request on `conn` (kept alive); the answer's status. */
async function exchange(conn: Deno.Conn): Promise<number> {
  await conn.write(te.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  const buf = new Uint8Array(8192);
  let text = "";
  while (!/\r\n\r\n[\s\S]*\}/.test(text)) {
    const n = await conn.read(buf);
    if (n === null) throw new Error("closed before the answer");
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return Number(/^HTTP\/1\.1 (\d+)/.exec(text)![1]);
}

async function timed(srv: TestServer, path: string, init?: RequestInit & { token?: string }) {
  const started = performance.now();
  const res = await srv.fetch(path, init);
  await res.body?.cancel();
  return { status: res.status, ms: performance.now() - started };
}

Deno.test("1,000 half-open connections: other clients answered within 1 s, memory bounded, all dropped", async () => {
  const headerTimeout = 6;
  const openFiles = /^Max open files\s+(\d+|unlimited)/m.exec(Deno.readTextFileSync("/proc/self/limits"))?.[1];
  assert.ok(
    openFiles === "unlimited" || Number(openFiles) >= 2500,
    `ulimit -n is ${openFiles}: raise it (.ci/run does)`,
  );
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet", HEADER_TIMEOUT_SECONDS: String(headerTimeout) } });
  assertForm(srv, "1");
  const api = await srv.login();
  const port = portOf(srv);
  for (let i = 0; i < 5; i++) await timed(srv, "/healthz");
  const before = rssMiB(srv.process.pid);

  const conns: Deno.TcpConn[] = [];
  const opening = performance.now();
  for (let i = 0; i < 1000; i += 50) conns.push(...await Promise.all(Array.from({ length: 50 }, () => halfOpen(port))));
  const opened = performance.now();
  // When the server closes each (the server never answers a header that does not end).
  const closedAt: (number | null)[] = conns.map(() => null);
  const allClosed = Promise.all(conns.map(async (c, i) => {
    await closedWithin(c, 120_000);
    closedAt[i] = performance.now();
  }));

  // The slowloris way: one more header line on every connection now and then; meanwhile a client works as usual.
  const times: number[] = [];
  for (let round = 1; round <= 4; round++) {
    await Promise.all(conns.map((c) => c.write(te.encode(`X-Slow-${round}: 1\r\n`)).catch(() => 0)));
    for (const path of ["/healthz", "/api/v1/devices", "/api/v1/product_types"]) {
      const r = await timed(srv, path, { token: api.token });
      assert.equal(r.status, 200, path);
      times.push(r.ms);
    }
  }
  const after = rssMiB(srv.process.pid);
  const heldMs = performance.now() - opened;
  const droppedEarly = closedAt.filter((t) => t !== null).length;

  // The server drops them all once HEADER_TIMEOUT_SECONDS is over (without the front they would stay open).
  const gaveUp = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), (headerTimeout + 20) * 1000));
  const dropped = await Promise.race([allClosed, gaveUp]);
  const lastDropMs = Math.max(...closedAt.map((t) => t ?? Infinity)) - opening;
  const droppedRss = rssMiB(srv.process.pid);
  times.sort((a, b) => a - b);
  console.log(
    `1,000 half-open connections (opened in ${Math.round(opened - opening)} ms, measured for ${
      Math.round(heldMs)
    } ms): ` +
      `${times.length} requests beside them, median ${times[times.length >> 1].toFixed(1)} ms, ` +
      `slowest ${times.at(-1)!.toFixed(1)} ms; server RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB ` +
      `(+${(after - before).toFixed(1)} MiB); ${droppedEarly} dropped while measuring (the cap makes room for the ` +
      `client); all dropped ${(lastDropMs / 1000).toFixed(1)} s after the first was opened (RSS then ` +
      `${droppedRss.toFixed(0)} MiB)`,
  );
  assert.ok(times[times.length >> 1] < 1000, "answers within 1 s");
  assert.ok(times.at(-1)! < 5000, `slowest answer ${times.at(-1)} ms`);
  assert.ok(after - before <= 100, `RSS grew ${after - before} MiB`);
  if (heldMs < headerTimeout * 1000 - 1000) assert.ok(droppedEarly <= 10, `${droppedEarly} dropped before their time`);
  assert.notEqual(dropped, "timeout", "the half-open connections were never dropped");
  assert.ok(lastDropMs >= headerTimeout * 1000 - 100, `dropped after ${lastDropMs} ms`);
  for (const c of conns) c.close();
});

/** The front's forms: Deno's server per connection with the deadlines beside it, and the relay (the fallback). */
const FORMS = [["1", "direct"], ["relay", "relay"]] as const;

/** Fails when CONNECTION_GUARD=1 fell back to the relay (this Deno's internals changed: server/lib/direct_serve.ts). */
function assertForm(srv: TestServer, guard: string) {
  if (guard === "1") assert.doesNotMatch(srv.output(), /no serveHttpOnConnection/);
}

for (const [guard, form] of FORMS) {
  Deno.test(`${form} front: stalled headers time out, the half-open cap closes the oldest, idle kept-alive connections close`, async () => {
    await using srv = await startServer({
      env: {
        CONNECTION_GUARD: guard,
        HEADER_TIMEOUT_SECONDS: "1",
        IDLE_CONNECTION_SECONDS: "2",
        MAX_HALF_OPEN_CONNECTIONS: "5",
        METRICS_TOKEN: "slow-clients-metrics-token",
      },
    });
    const port = portOf(srv);

    // A header that never completes: closed after HEADER_TIMEOUT_SECONDS (within the sweep's second).
    const stalled = await halfOpen(port);
    const started = Date.now();
    assert.equal(await closedWithin(stalled, 5000), "closed");
    const waited = Date.now() - started;
    assert.ok(waited >= 900, `closed after ${waited} ms`);
    stalled.close();

    // Over the cap: each new connection closes the one waiting longest; a client still gets its answers.
    const six = [];
    for (let i = 0; i < 6; i++) six.push(await halfOpen(port));
    assert.equal(await closedWithin(six[0], 500), "closed", "the oldest half-open connection is closed");
    assert.equal((await timed(srv, "/healthz")).status, 200);
    for (const c of six) c.close();

    assertForm(srv, guard);
    // A kept-alive connection: its next request's header is held to a deadline (the relay: HEADER_TIMEOUT_SECONDS from
    // its first byte; Deno's server per connection: IDLE_CONNECTION_SECONDS from the last answer, counted as idle).
    const kept = await Deno.connect({ hostname: "127.0.0.1", port });
    assert.equal(await exchange(kept), 200);
    assert.equal(await exchange(kept), 200, "kept alive");
    await kept.write(te.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
    assert.equal(await closedWithin(kept, 5000), "closed");
    kept.close();

    // Idle after an answer: closed after IDLE_CONNECTION_SECONDS, not before.
    const idle = await Deno.connect({ hostname: "127.0.0.1", port });
    assert.equal(await exchange(idle), 200);
    assert.equal(await closedWithin(idle, 900), "open");
    assert.equal(await closedWithin(idle, 5000), "closed");
    idle.close();

    // An oversized header is refused with 431.
    const big = await Deno.connect({ hostname: "127.0.0.1", port });
    await big.write(te.encode(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(40_000)}\r\n\r\n`)).catch(() =>
      0
    );
    const buf = new Uint8Array(4096);
    const n = await big.read(buf).catch(() => null);
    assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 431 /);
    big.close();

    // Each drop is counted by its reason.
    const metrics = await (await srv.fetch("/metrics", { token: "slow-clients-metrics-token" })).text();
    const count = (reason: string) =>
      Number(new RegExp(`^console_connections_dropped_total\\{reason="${reason}"\\} (\\d+)$`, "m").exec(metrics)?.[1]);
    assert.ok(count("header_timeout") >= (form === "relay" ? 2 : 1), metrics);
    assert.ok(count("evicted") >= 1);
    assert.ok(count("idle") >= (form === "relay" ? 1 : 2), metrics);
    assert.equal(count("header_too_large"), 1);
  });

  Deno.test(`${form} front: the app sees the client's own address (audit trail, throttles)`, async () => {
    await using srv = await startServer({ env: { CONNECTION_GUARD: guard } });
    assertForm(srv, guard);
    // A wrong password from 127.0.0.9 (a loopback address of its own), over a raw connection.
    const body = JSON.stringify({ email: "admin@example.com", password: "not-the-password" });
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = net.connect({ host: "127.0.0.1", port: portOf(srv), localAddress: "127.0.0.9" }, () => {
        socket.write(
          `POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      socket.on("data", (d) => text += d);
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    assert.match(answer, /^HTTP\/1\.1 401 /);
    const api = await srv.login();
    const entries = (await api.listAudit({ action: "auth.sign_in_failed" })).data;
    assert.deepEqual(entries.map((e) => e.ip), ["127.0.0.9"]);
  });
}
