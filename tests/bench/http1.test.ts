/**
 * The fleet generator's HTTP/1.1 client (testing/http1.ts) against Deno's server and a raw TCP peer: bodies by
 * length and chunked, keep-alive reuse, a kept-alive connection the server closed, a peer that never answers.
 */
import assert from "node:assert/strict";
import { Http1Error, Http1Pool } from "../../testing/http1.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("answers by length and chunked, on kept-alive connections", async () => {
  const connections = new Set<string>();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req, info) => {
    connections.add(`${info.remoteAddr.hostname}:${info.remoteAddr.port}`);
    const url = new URL(req.url);
    if (url.pathname === "/echo") return new Response(`got ${await req.text()}`, { status: 201 });
    if (url.pathname === "/chunked") {
      const parts = ["one,", "two,", "x".repeat(40_000)];
      return new Response(
        new ReadableStream({
          pull(c) {
            const p = parts.shift();
            if (p) c.enqueue(new TextEncoder().encode(p));
            else c.close();
          },
        }),
      );
    }
    if (url.pathname === "/empty") return new Response(null, { status: 204 });
    return new Response("missing", { status: 404 });
  });
  const pool = new Http1Pool(`http://127.0.0.1:${server.addr.port}`);
  try {
    const echo = await pool.send(
      pool.encode("POST", "/echo", ["content-type: text/plain"], new TextEncoder().encode("hello")),
      5000,
    );
    assert.deepEqual([echo.status, text(echo.body)], [201, "got hello"]);
    const chunked = await pool.send(pool.encode("GET", "/chunked", []), 5000);
    assert.deepEqual(chunked.status, 200);
    assert.deepEqual(text(chunked.body), "one,two," + "x".repeat(40_000));
    const empty = await pool.send(pool.encode("GET", "/empty", []), 5000);
    assert.deepEqual([empty.status, empty.body.length], [204, 0]);
    const missing = await pool.send(pool.encode("GET", "/nothing", []), 5000);
    assert.deepEqual([missing.status, text(missing.body)], [404, "missing"]);
    assert.deepEqual(connections.size, 1, "the four requests went over one kept-alive connection");
  } finally {
    pool.close();
    await server.shutdown();
  }
});

/** A raw peer: answers each connection's requests with `answer(n)` (n: that connection's request count), or not. */
function peer(answer: (n: number) => string | "close" | "silent") {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      (async () => {
        const buf = new Uint8Array(4096);
        for (let n = 0;; n++) {
          const read = await conn.read(buf).catch(() => null);
          if (read === null) return;
          const a = answer(n);
          if (a === "silent") continue;
          if (a === "close") return conn.close();
          await conn.write(new TextEncoder().encode(a));
        }
      })();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    connections: () => conns.length,
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

Deno.test("a kept-alive connection the server closed is sent again once on a new one", async () => {
  // Each connection answers its first request, then closes on the next (as a server closes an idle one).
  const p = peer((n) => n === 0 ? "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok" : "close");
  const pool = new Http1Pool(`http://127.0.0.1:${p.port}`);
  try {
    for (let i = 0; i < 3; i++) {
      const a = await pool.send(pool.encode("GET", "/", []), 5000);
      assert.deepEqual([a.status, text(a.body)], [200, "ok"]);
    }
    assert.deepEqual(p.connections(), 3);
  } finally {
    pool.close();
    p.close();
  }
});

Deno.test("an answer cut short and a peer that never answers are errors, not answers", async () => {
  const cut = peer(() => "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort");
  const silent = peer(() => "silent");
  const cutPool = new Http1Pool(`http://127.0.0.1:${cut.port}`);
  const silentPool = new Http1Pool(`http://127.0.0.1:${silent.port}`);
  try {
    // The peer sends 5 of 10 bytes and keeps the connection: only the timeout ends the wait.
    await assert.rejects(
      cutPool.send(cutPool.encode("GET", "/", []), 300),
      (e) => e instanceof Http1Error && e.kind === "timeout",
    );
    const started = performance.now();
    await assert.rejects(
      silentPool.send(silentPool.encode("GET", "/", []), 300),
      (e) => e instanceof Http1Error && e.kind === "timeout",
    );
    assert.ok(performance.now() - started < 2000);
  } finally {
    cutPool.close();
    silentPool.close();
    cut.close();
    silent.close();
  }
});
