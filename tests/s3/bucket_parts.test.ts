/**
 * A part's request and its answer without the SDK's pipeline (server/files/bucket_parts.ts), against a scripted store
 * on a raw socket: S3's error answers become the SDK's errors by their code, a refusal is not retried, a failure of the
 * store or the network is retried once, a skewed clock is corrected from the answer's Date, an abort ends the request
 * at once. (The requests s3rver accepts, signature and all: tests/s3/bucket_put.test.ts.)
 */
import assert from "node:assert/strict";
import { S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { bucketParts } from "../../server/files/bucket_parts.ts";

/** An answer; "close": the connection closed without one; "silent": no answer, the body left unread; `early`: an
 * answer right after the head, the body unread, then the connection closed; `thenClose`: an answer, then closed. */
type Reply = string | "close" | "silent" | { early: string } | { thenClose: string };

/** A store that reads each request whole (head and body) and gives the next scripted reply. */
function scriptedStore(replies: Reply[]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const conns = new Set<Deno.Conn>();
  const latin1 = new TextDecoder("latin1");
  let connections = 0;
  const serve = async (conn: Deno.Conn) => {
    connections++;
    conns.add(conn);
    const buf = new Uint8Array(1 << 16);
    let pending = "";
    try {
      for (;;) {
        while (!pending.includes("\r\n\r\n")) {
          const n = await conn.read(buf);
          if (n === null) return;
          pending += latin1.decode(buf.subarray(0, n));
        }
        const end = pending.indexOf("\r\n\r\n") + 4;
        const head = pending.slice(0, end);
        heads.push(head);
        let body = pending.length - end;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        const reply = replies.shift() ?? "close";
        if (reply === "silent") return await new Promise(() => {}); // holds the request, reads nothing more
        if (typeof reply === "object" && "early" in reply) {
          await conn.write(new TextEncoder().encode(reply.early));
          return conn.close();
        }
        while (body < length) {
          const n = await conn.read(buf);
          if (n === null) return;
          body += n;
        }
        pending = "";
        if (reply === "close") return conn.close();
        if (typeof reply === "object") {
          await conn.write(new TextEncoder().encode(reply.thenClose));
          return conn.close();
        }
        await conn.write(new TextEncoder().encode(reply));
      }
    } catch {
      /* closed */
    } finally {
      conns.delete(conn);
    }
  };
  (async () => {
    for await (const conn of listener) serve(conn);
  })().catch(() => {});
  const { port } = listener.addr as Deno.NetAddr;
  return {
    heads,
    connections: () => connections,
    url: { protocol: "http:", hostname: "127.0.0.1", port, path: "/bucket/firmwares/a.xz" },
    close() {
      listener.close();
      for (const c of conns) c.close();
    },
  };
}

const answer = (status: string, headers: Record<string, string>, body = "") =>
  `HTTP/1.1 ${status}\r\n${
    Object.entries({ ...headers, "content-length": String(body.length) }).map(([k, v]) => `${k}: ${v}\r\n`).join("")
  }\r\n${body}`;
const ok = (etag: string) => answer("200 OK", { etag: `"${etag}"`, "x-amz-checksum-crc32": "AAAAAA==" });
const s3Error = (status: string, code: string, message: string, headers: Record<string, string> = {}) =>
  answer(
    status,
    { "content-type": "application/xml", ...headers },
    `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>${code}</Code><Message>${message}</Message><RequestId>r1</RequestId></Error>`,
  );

const uploads = () =>
  new S3Client({ region: "eu-west-1", credentials: { accessKeyId: "AKID", secretAccessKey: "secret" } });
const part = (url: ReturnType<typeof scriptedStore>["url"]) => ({
  url,
  UploadId: "up/1+=",
  PartNumber: 7,
  Body: new Uint8Array(300_000).fill(3),
});

Deno.test("bucket parts: the answer's ETag and CRC32; the request signed with the part's query and CRC32", async () => {
  const store = scriptedStore([ok("e1")]);
  try {
    const sent = await bucketParts(uploads(), 800)(part(store.url), new AbortController().signal);
    assert.deepEqual(sent, { PartNumber: 7, ETag: '"e1"', ChecksumCRC32: "AAAAAA==" });
    assert.equal(store.heads.length, 1);
    const head = store.heads[0];
    assert.match(head, /^PUT \/bucket\/firmwares\/a\.xz\?partNumber=7&uploadId=up%2F1%2B%3D HTTP\/1\.1\r\n/);
    assert.match(head, /\r\nauthorization: AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/eu-west-1\/s3\/aws4_request, /i);
    assert.match(head, /\r\nx-amz-content-sha256: UNSIGNED-PAYLOAD\r\n/i);
    assert.match(head, /\r\nx-amz-checksum-crc32: [A-Za-z0-9+/]{6}==\r\n/i);
  } finally {
    store.close();
  }
});

Deno.test("bucket parts: a refusal is the store's error by its code, sent once", async () => {
  const store = scriptedStore([s3Error("403 Forbidden", "AccessDenied", "Access Denied"), ok("late")]);
  try {
    const err = await bucketParts(uploads(), 800)(part(store.url), new AbortController().signal).then(
      () => assert.fail("resolved"),
      (e) => e,
    );
    assert.ok(err instanceof S3ServiceException);
    assert.equal(err.name, "AccessDenied");
    assert.equal(err.message, "Access Denied");
    assert.equal(err.$metadata.httpStatusCode, 403);
    assert.equal(store.heads.length, 1, "not retried");
  } finally {
    store.close();
  }
});

Deno.test("bucket parts: a 5xx, a throttle or a dropped connection is retried once", async () => {
  for (
    const first of [
      s3Error("500 Internal Server Error", "InternalError", "boom"),
      s3Error("503 Slow Down", "SlowDown", "Please reduce your request rate."),
      "close",
    ]
  ) {
    const store = scriptedStore([first, ok("again")]);
    try {
      const sent = await bucketParts(uploads(), 800)(part(store.url), new AbortController().signal);
      assert.equal(sent.ETag, '"again"');
      assert.equal(store.heads.length, 2);
    } finally {
      store.close();
    }
  }
  const store = scriptedStore([
    s3Error("503 Service Unavailable", "ServiceUnavailable", "down"),
    s3Error("503 Service Unavailable", "ServiceUnavailable", "still down"),
  ]);
  try {
    await assert.rejects(
      bucketParts(uploads(), 800)(part(store.url), new AbortController().signal),
      (e: Error) => e.name === "ServiceUnavailable" && e.message === "still down",
    );
    assert.equal(store.heads.length, 2, "two attempts in all");
  } finally {
    store.close();
  }
});

Deno.test("bucket parts: a skewed clock is corrected from the store's Date and the part sent again", async () => {
  const storeTime = new Date(Date.now() + 3 * 3600_000);
  const store = scriptedStore([
    s3Error("403 Forbidden", "RequestTimeTooSkewed", "The difference is too large.", { date: storeTime.toUTCString() }),
    ok("skewed"),
  ]);
  try {
    const sent = await bucketParts(uploads(), 800)(part(store.url), new AbortController().signal);
    assert.equal(sent.ETag, '"skewed"');
    const dateOf = (head: string) => {
      const [, d, t] = /\r\nx-amz-date: (\d{8})T(\d{6})Z/i.exec(head)!;
      return Date.parse(
        `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}T${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4)}Z`,
      );
    };
    assert.ok(Math.abs(dateOf(store.heads[1]) - storeTime.getTime()) < 60_000, "signed at the store's time");
  } finally {
    store.close();
  }
});

Deno.test("bucket parts: an answer without an ETag fails; an abort ends a request the store holds", async () => {
  const store = scriptedStore([answer("200 OK", {}), "silent"]);
  try {
    await assert.rejects(
      bucketParts(uploads(), 800)(part(store.url), new AbortController().signal),
      /without an ETag/,
    );
    const abort = new AbortController();
    const sending = bucketParts(uploads(), 800)(part(store.url), abort.signal);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    abort.abort(new Error("the bucket froze"));
    await assert.rejects(sending, /the bucket froze/);
    assert.ok(performance.now() - t0 < 1000, "ended at once");
    assert.equal(store.heads.length, 2, "an aborted part is not sent again");
  } finally {
    store.close();
  }
});

Deno.test("bucket parts: a refusal before the body is read, an interim 100 then a chunked error, a kept-alive connection the store closed", async () => {
  const forbidden = s3Error("403 Forbidden", "AccessDenied", "no", { connection: "close" });
  const chunks = ["<Error><Code>InvalidPart</Co", "de><Message>bad</Message></", "Error>"];
  const chunkedError = "HTTP/1.1 400 Bad Request\r\ntransfer-encoding: chunked\r\n\r\n" +
    chunks.map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join("") + "0\r\n\r\n";
  const store = scriptedStore([
    { early: forbidden },
    "HTTP/1.1 100 Continue\r\n\r\n" + chunkedError, // an interim answer before the final one
    { thenClose: ok("first") },
    s3Error("500 Internal Server Error", "InternalError", "once"),
    ok("second"),
  ]);
  try {
    const send = bucketParts(uploads(), 800);
    const big = { ...part(store.url), Body: new Uint8Array(8 << 20) }; // more than the socket buffers take at once
    await assert.rejects(send(big, new AbortController().signal), (e: Error) => e.name === "AccessDenied");
    await assert.rejects(
      send(part(store.url), new AbortController().signal),
      (e: Error) => e.name === "InvalidPart" && e.message === "bad",
    );
    assert.equal((await send(part(store.url), new AbortController().signal)).ETag, '"first"');
    // The next part finds its kept-alive connection closed: sent again on a new one without using up its retry,
    // which the 500 then takes.
    assert.equal((await send(part(store.url), new AbortController().signal)).ETag, '"second"');
    // Five heads on three connections: the refused one (closed), the one kept alive for the chunked error and the
    // first part, which the store then closed, and the new one for the 500 and its retry.
    assert.equal(store.heads.length, 5);
    assert.equal(store.connections(), 3);
  } finally {
    store.close();
  }
});
