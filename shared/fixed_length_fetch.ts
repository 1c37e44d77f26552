/**
 * A `fetch` for streamed uploads from Deno (the CLI, the test harness, the bench): it sends a `ReadableStream` body
 * with its `Content-Length` through node:http(s), because Deno's own `fetch` always sends such a body chunked, and the
 * server refuses chunked uploads (411; why: docs/DECISIONS.md, "Firmware store and the upload pipeline"). Every other
 * call goes to the global `fetch`. Not for the browser (the web app uploads with XMLHttpRequest).
 */
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

const NO_BODY = new Set([101, 204, 205, 304]);

export const fixedLengthFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  const body = init?.body;
  if (!(body instanceof ReadableStream) || !headers.has("content-length")) return fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  const signal = init?.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const transport = url.protocol === "https:" ? https : http;
    const req = transport.request(
      url,
      { method: init?.method ?? "POST", headers: Object.fromEntries(headers) },
      (res) => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const status = res.statusCode ?? 500;
        const stream = NO_BODY.has(status) ? null : Readable.toWeb(res) as ReadableStream<Uint8Array>;
        if (!stream) res.resume();
        resolve(new Response(stream, { status, statusText: res.statusMessage, headers: answer }));
      },
    );
    const abort = () => req.destroy(signal?.reason ?? new DOMException("The upload was aborted.", "AbortError"));
    signal?.addEventListener("abort", abort, { once: true });
    req.on("error", (err) => reject(signal?.aborted ? signal.reason : err));
    req.on("close", () => signal?.removeEventListener("abort", abort));
    const reader = body.getReader();
    (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!req.write(value)) await new Promise((r) => req.once("drain", r));
        if (req.destroyed) break;
      }
      req.end();
    })().catch((err) => req.destroy(err));
  });
};
