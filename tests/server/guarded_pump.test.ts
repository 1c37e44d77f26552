/**
 * The connection front (server/lib/guarded_serve.ts) passes answers of every size through intact on one kept-alive
 * connection, whatever size its reused read buffers have grown or shrunk to: small, the 4–16 KiB a page is (kept
 * through the page's small last piece), large (grown to 64 KiB, then shrunk on the tail), a bodiless 204, a HEAD, and
 * an upload body in between. Both forms of the front: the relay, and Deno's server per connection (the second fails if
 * this Deno no longer has serveHttpOnConnection, server/lib/direct_serve.ts).
 */
import assert from "node:assert/strict";
import { type GuardOptions, type Handler, serveGuarded } from "../../server/lib/guarded_serve.ts";
import { serveDirect, serveOnConnection } from "../../server/lib/direct_serve.ts";

/** `n` bytes whose content tells a shifted or repeated piece from the right one. */
const pattern = (n: number, seed: number) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return out;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads one answer off the connection: its status, headers and Content-Length body (none for 204 or HEAD). */
async function readAnswer(conn: Deno.Conn, pending: { bytes: Uint8Array }, head: boolean) {
  const more = async () => {
    const buf = new Uint8Array(8192);
    const n = await conn.read(buf);
    if (n === null) throw new Error("the connection closed mid-answer");
    const joined = new Uint8Array(pending.bytes.length + n);
    joined.set(pending.bytes);
    joined.set(buf.subarray(0, n), pending.bytes.length);
    pending.bytes = joined;
  };
  let end: number;
  while ((end = decoder.decode(pending.bytes).indexOf("\r\n\r\n")) < 0) await more();
  // The header is ASCII, so its character index is its byte index.
  const header = decoder.decode(pending.bytes.subarray(0, end));
  const status = Number(header.split(" ")[1]);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(header)?.[1] ?? 0);
  const bodyLength = head || status === 204 ? 0 : length;
  while (pending.bytes.length < end + 4 + bodyLength) await more();
  const body = pending.bytes.slice(end + 4, end + 4 + bodyLength);
  pending.bytes = pending.bytes.slice(end + 4 + bodyLength);
  return { status, length, body };
}

const FORMS = {
  relay: serveGuarded,
  direct: (opts: GuardOptions, handler: Handler) => {
    const serveOn = serveOnConnection();
    assert.ok(serveOn, `Deno ${Deno.version.deno} has no serveHttpOnConnection: the front falls back to the relay`);
    return serveDirect(opts, handler, serveOn);
  },
};

for (const [form, serve] of Object.entries(FORMS)) {
  Deno.test(`the ${form} front passes answers of every size through intact on one kept-alive connection`, async () => {
    const server = serve({
      hostname: "127.0.0.1",
      port: 0,
      headerTimeoutMs: 10_000,
      idleTimeoutMs: 10_000,
      maxHalfOpen: 10,
    }, async (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/empty") return new Response(null, { status: 204 });
      if (req.method === "POST") return new Response(String((await req.arrayBuffer()).byteLength));
      const n = Number(url.searchParams.get("n"));
      return new Response(pattern(n, n), { headers: { "Content-Type": "application/octet-stream" } });
    });
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    try {
      const pending = { bytes: new Uint8Array() };
      // Pages of 10 KB between growths and shrinks of the buffers, and every kind of answer.
      const sizes = [100, 10_000, 10_000, 3_000, 10_000, 200_000, 10_000, 10_000, 15_000, 70_000, 500, 10_000];
      for (const [i, n] of sizes.entries()) {
        await conn.write(encoder.encode(`GET /page?n=${n} HTTP/1.1\r\nHost: x\r\n\r\n`));
        const answer = await readAnswer(conn, pending, false);
        assert.deepEqual([answer.status, answer.body.length], [200, n], `answer ${i}`);
        assert.deepEqual(answer.body, pattern(n, n), `answer ${i}: its bytes`);
        if (i === 3) {
          await conn.write(encoder.encode("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n"));
          assert.deepEqual((await readAnswer(conn, pending, false)).status, 204);
          await conn.write(encoder.encode(`HEAD /page?n=10000 HTTP/1.1\r\nHost: x\r\n\r\n`));
          const head = await readAnswer(conn, pending, true);
          assert.deepEqual([head.status, head.length], [200, 10_000]);
        }
        if (i === 6) {
          const body = pattern(100_000, 3);
          await conn.write(encoder.encode(`POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`));
          await conn.write(body);
          const up = await readAnswer(conn, pending, false);
          assert.deepEqual([up.status, decoder.decode(up.body)], [200, "100000"]);
        }
      }
      assert.deepEqual(pending.bytes.length, 0, "nothing beyond the answers");
    } finally {
      conn.close();
      await server.shutdown();
    }
  });
}
