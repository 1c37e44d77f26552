import type { MiddlewareHandler } from "hono";

/** JSON answers smaller than this go out as they are: compressing them saves less than it costs. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/** The encodings an Accept-Encoding header takes (lower case; one refused with q=0 is left out). */
export function acceptedEncodings(header: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (name && !(q && Number(q.slice(2)) === 0)) out.add(name);
  }
  return out;
}

/** Statuses whose answers have no body. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** Whether an Accept-Encoding header takes gzip; a client sends the same header every time, so the last few are kept. */
const gzipByHeader = new Map<string, boolean>();
export function acceptsGzip(header: string | undefined): boolean {
  const key = header ?? "";
  let yes = gzipByHeader.get(key);
  if (yes === undefined) {
    const accepted = acceptedEncodings(header);
    yes = accepted.has("gzip") || accepted.has("*");
    if (key.length > 256) return yes;
    if (gzipByHeader.size >= 64) gzipByHeader.clear();
    gzipByHeader.set(key, yes);
  }
  return yes;
}

/**
 * gzip on the fly for JSON answers of at least COMPRESS_THRESHOLD_BYTES to clients that accept it, with
 * `Vary: Accept-Encoding` (on every answer made through the context, set up front). Only answers made whole (`c.json`: their body is one chunk) are compressed; a streamed
 * answer (`GET treatments`, hundreds of MB for a large catalogue) goes out as it is, a chunk at a time: compressing it
 * runs on the event loop and held up device check-ins past a second with ten lists at once
 * (tests/server/treatments_load.test.ts). The console reads GET treatment_summaries instead, which is compressed.
 * gzip, not brotli: brotli is several times slower to compress for a few percent less.
 */
export function compressJson(threshold = COMPRESS_THRESHOLD_BYTES): MiddlewareHandler {
  return async (c, next) => {
    // Set before the answer is made, so that an answer to a client that takes no gzip is never looked at: reading its
    // headers makes Deno drop the answer it prepared for the socket and send it the slow way (half the req/s).
    c.header("Vary", "Accept-Encoding");
    await next();
    if (!acceptsGzip(c.req.header("Accept-Encoding"))) return;
    const res = c.res;
    // Not `res.body` until the answer is to be compressed: reading it turns a body made whole (a string) into a stream,
    // and Deno.serve then sends it a chunk at a time instead of at once (GET devices went at a fraction of its rate).
    if (
      c.req.method === "HEAD" || NULL_BODY_STATUS.has(res.status) || res.headers.has("Content-Encoding") ||
      !/^application\/json\b/i.test(res.headers.get("Content-Type") ?? "")
    ) return;
    const vary = res.headers.get("Vary");
    if (!vary?.toLowerCase().includes("accept-encoding")) {
      res.headers.set("Vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
    }
    const declared = Number(res.headers.get("Content-Length") ?? NaN);
    if (declared < threshold || !res.body) return;

    const reader = res.body.getReader();
    const first = await reader.read();
    const second = first.done ? first : await reader.read();
    const init = { status: res.status, statusText: res.statusText, headers: new Headers(res.headers) };
    if (!second.done) {
      // Streamed: pass it on unchanged, the two chunks read first included.
      const pending = [first.value!, second.value];
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = pending.shift();
          if (next) return controller.enqueue(next);
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      }, { highWaterMark: 0 });
      return setResponse(c, new Response(body, init));
    }
    const whole = first.value ?? new Uint8Array();
    if (whole.byteLength < threshold) return setResponse(c, new Response(whole, init));
    const gzipped = gzipStream(whole);
    init.headers.delete("Content-Length");
    init.headers.set("Content-Encoding", "gzip");
    setResponse(c, new Response(gzipped, init));
  };
}

/** A body made whole, gzipped as it is read. */
export const gzipStream = (whole: Uint8Array): ReadableStream<Uint8Array> =>
  new Blob([whole as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);

/** Replaces the answer whole: Hono would otherwise copy the old headers (Content-Length) onto the new one. */
function setResponse(c: Parameters<MiddlewareHandler>[0], res: Response) {
  c.res = undefined as unknown as Response;
  c.res = res;
}
