/**
 * What the front without a relay (server/lib/direct_serve.ts) must do without seeing the bytes: a download whose client
 * stopped reading is closed once it has not moved for the idle time (one read slowly is not); a header cut off halfway
 * is closed by force at its deadline; at shutdown a request in flight is answered, a connection waiting for its header
 * is closed, and new connections are refused. And the choice of form: this Deno has the internal API; without it, the
 * relay and one warning.
 */
import assert from "node:assert/strict";
import type { DropReason, GuardOptions } from "../../server/lib/guarded_serve.ts";
import { serveDirect, serveOnConnection } from "../../server/lib/direct_serve.ts";
import { serveFront } from "../../server/lib/connection_front.ts";

const te = new TextEncoder();
const DOWNLOAD = 32 * 1024 * 1024;

function serve(overrides: Partial<GuardOptions>, drops: DropReason[], handler?: () => Promise<Response>) {
  const serveOn = serveOnConnection();
  assert.ok(serveOn, `Deno ${Deno.version.deno} has no serveHttpOnConnection`);
  return serveDirect(
    {
      hostname: "127.0.0.1",
      port: 0,
      headerTimeoutMs: 10_000,
      idleTimeoutMs: 1000,
      maxHalfOpen: 10,
      onDrop: (reason) => drops.push(reason),
      ...overrides,
    },
    handler ?? (() => {
      // A download of 32 MiB in 64 KiB pieces (more than the socket buffers hold), as a file's stream would be.
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= DOWNLOAD) return controller.close();
          controller.enqueue(new Uint8Array(64 * 1024));
          sent += 64 * 1024;
        },
      }, { highWaterMark: 0 });
      return Promise.resolve(new Response(body, { headers: { "Content-Length": String(DOWNLOAD) } }));
    }),
    serveOn,
  );
}

/** Reads until the connection ends or `ms` pass without it ending; the bytes read and whether it ended. */
async function drain(conn: Deno.Conn, ms: number, pauseMs = 0): Promise<{ bytes: number; ended: boolean }> {
  const buf = new Uint8Array(64 * 1024);
  const deadline = Date.now() + ms;
  let bytes = 0;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return { bytes, ended: false };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      conn.read(buf).catch(() => null),
      new Promise<"open">((r) => timer = setTimeout(() => r("open"), left)),
    ]);
    clearTimeout(timer);
    if (n === "open") return { bytes, ended: false };
    if (n === null) return { bytes, ended: true };
    bytes += n;
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
  }
}

Deno.test("direct front: a download the client stopped reading is closed after the idle time, a slow one is not", async () => {
  const drops: DropReason[] = [];
  const server = serve({}, drops);
  try {
    const request = te.encode("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
    // Read slowly (a piece every 50 ms, well inside the idle second) for 2.5 s: never dropped.
    const slow = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await slow.write(request);
    const read = await drain(slow, 2500, 50);
    assert.equal(read.ended, false, "a download read slowly is not cut");
    assert.ok(read.bytes > 0);
    slow.close();

    // Read a little, then nothing: the answer stops moving once the socket buffers are full, and is cut.
    const stalled = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await stalled.write(request);
    assert.ok((await stalled.read(new Uint8Array(1024)))! > 0);
    await new Promise((r) => setTimeout(r, 4000));
    const rest = await drain(stalled, 5000);
    assert.ok(rest.ended, "the stalled download's connection was closed");
    // What the socket buffers held when it stalled, not the rest of the download (it was cut, not finished).
    assert.ok(rest.bytes < DOWNLOAD / 2, `read ${rest.bytes} bytes after the stall`);
    stalled.close();
    assert.ok(drops.includes("idle"), drops.join());
  } finally {
    await server.shutdown();
  }
});

Deno.test("direct front: shutdown answers the request in flight, closes a waiting header and refuses new connections", async () => {
  const drops: DropReason[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  let arrived!: () => void;
  const inHandler = new Promise<void>((r) => arrived = r);
  const server = serve({}, drops, async () => {
    arrived();
    await held;
    return new Response("done");
  });
  const port = server.addr.port;
  const busy = await Deno.connect({ hostname: "127.0.0.1", port });
  await busy.write(te.encode("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"));
  await inHandler;
  const waiting = await Deno.connect({ hostname: "127.0.0.1", port });
  await waiting.write(te.encode("GET /never HTTP/1.1\r\nHost: x\r\n"));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(server.halfOpen(), 1);

  const stopped = server.shutdown();
  assert.equal((await drain(waiting, 3000)).ended, true, "the waiting header's connection is closed");
  waiting.close();
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }), "no new connections");
  release();
  const buf = new Uint8Array(4096);
  let text = "";
  for (;;) {
    const n = await busy.read(buf).catch(() => null);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  busy.close();
  assert.match(text, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\ndone$/);
  await stopped;
  await server.finished;
});

Deno.test("the front's form: direct on this Deno, the relay with one warning without the API, relay when asked", async () => {
  const opts: GuardOptions = {
    hostname: "127.0.0.1",
    port: 0,
    headerTimeoutMs: 1000,
    idleTimeoutMs: 1000,
    maxHalfOpen: 5,
  };
  const handler = () => new Response("ok");
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);
  for (
    const [server, form] of [
      [serveFront(opts, handler, "direct", warn), "direct"],
      [serveFront(opts, handler, "direct", warn, null), "relay"],
      [serveFront(opts, handler, "relay", warn), "relay"],
    ] as const
  ) {
    try {
      assert.equal(server.form, form);
      assert.equal(await (await fetch(`http://127.0.0.1:${server.addr.port}/`)).text(), "ok");
    } finally {
      await server.shutdown();
    }
  }
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^WARNING: this Deno \(.+\) has no serveHttpOnConnection/);
});
