/**
 * One HTTP/1.1 request with a body on Deno's own TCP (or TLS) connections, kept alive per origin: what a bucket part
 * needs and nothing more. node:http cost ~0.2 s of CPU per GiB more in 5 MiB parts (its Node-compatible streams and
 * parser around each request; docs/DECISIONS.md, "Bucket parts without the SDK's pipeline"). The head and the body are
 * written as they are (the body is not copied); the answer's head is parsed here and its body read by Content-Length,
 * chunked, or to the connection's end. TLS trusts what Deno trusts (DENO_CERT, DENO_TLS_CA_STORE), as the SDK's
 * requests do.
 */

import { Buffer } from "node:buffer";

export interface Origin {
  protocol: string;
  hostname: string;
  port?: number;
}

export interface Answer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** At most maxBodyBytes of it (the rest read and dropped). */
  body: string;
}

/** A connection's failure before its answer began: nothing reached the store, or nothing came back. */
export class ConnectionError extends Error {
  override name = "ConnectionError";
  constructor(message: string, readonly reused: boolean) {
    super(message);
  }
}

/** An idle connection older than this is closed rather than reused (stores close idle ones after 5-20 s). */
const IDLE_MS = 4_000;
const HEAD_LIMIT = 64 * 1024;
const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");

interface Idle {
  conn: Deno.Conn;
  since: number;
}

export interface Connections {
  /** Sends `head` (request line and headers, without the blank line) and `body`; the answer, whole. */
  request(origin: Origin, head: string, body: Uint8Array, signal: AbortSignal): Promise<Answer>;
}

export function partConnections(connectMs: number, maxBodyBytes = 64 * 1024): Connections {
  const idle = new Map<string, Idle[]>();
  const keyOf = (o: Origin) => `${o.protocol}//${o.hostname}:${o.port ?? ""}`;

  const connect = async (origin: Origin): Promise<Deno.Conn> => {
    const tls = origin.protocol === "https:";
    const options = { hostname: origin.hostname, port: origin.port ?? (tls ? 443 : 80) };
    const connecting = tls ? Deno.connectTls(options) : Deno.connect(options);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no connection to the bucket within ${connectMs} ms`)), connectMs);
    });
    try {
      return await Promise.race([connecting, late]);
    } catch (err) {
      connecting.then((c) => c.close(), () => {}); // one that connects after the limit is dropped
      throw new ConnectionError(err instanceof Error ? err.message : String(err), false);
    } finally {
      clearTimeout(timer);
    }
  };

  const take = (key: string): Deno.Conn | null => {
    const list = idle.get(key);
    while (list?.length) {
      const { conn, since } = list.pop()!;
      if (performance.now() - since < IDLE_MS) return conn;
      conn.close();
    }
    return null;
  };

  return {
    async request(origin, head, body, signal) {
      const key = keyOf(origin);
      const pooled = take(key);
      const conn = pooled ?? await connect(origin);
      const onAbort = () => {
        try {
          conn.close();
        } catch { /* closed */ }
      };
      signal.addEventListener("abort", onAbort, { once: true });
      let keep = false;
      let answered = false;
      try {
        signal.throwIfAborted();
        // The answer is read while the body is written: a store may refuse before it has read the body.
        let written = false;
        const writing = (async () => {
          await writeAll(conn, encoder.encode(`${head}\r\n\r\n`));
          await writeAll(conn, body);
          written = true;
        })();
        writing.catch(() => {}); // a refusal's connection may close under the write: the answer tells
        const reader = new ConnReader(conn);
        const nextHead = () =>
          reader.head().catch((err) => {
            throw signal.aborted
              ? err
              : new ConnectionError(`the bucket's connection failed: ${err.message}`, !!pooled);
          });
        let answer = parseHead(await nextHead());
        // An interim answer (100 Continue, which a proxy may send unasked, 102, 103) is followed by the final one.
        while (answer.status >= 100 && answer.status < 200 && answer.status !== 101) {
          answer = parseHead(await nextHead());
        }
        answered = true;
        const length = answer.headers["content-length"];
        const chunked = /\bchunked\b/i.test(answer.headers["transfer-encoding"] ?? "");
        let bytes: Uint8Array;
        if (chunked) bytes = await reader.chunked(maxBodyBytes);
        else if (length !== undefined) bytes = await reader.exactly(Number(length), maxBodyBytes);
        else bytes = await reader.toEnd(maxBodyBytes);
        answer.body = new TextDecoder().decode(bytes);
        if (answer.status < 300) await writing; // the store read the whole body
        keep = written && (chunked || length !== undefined) && !/\bclose\b/i.test(answer.headers.connection ?? "") &&
          reader.drained();
        return answer;
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (err instanceof ConnectionError || answered) throw err;
        throw new ConnectionError(`the bucket's connection failed: ${(err as Error).message}`, !!pooled);
      } finally {
        signal.removeEventListener("abort", onAbort);
        if (keep && !signal.aborted) {
          const list = idle.get(key) ?? [];
          list.push({ conn, since: performance.now() });
          idle.set(key, list);
        } else {
          try {
            conn.close();
          } catch { /* closed */ }
        }
      }
    },
  };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array) {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

function parseHead(text: string): Answer {
  const lines = text.split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
  if (!m) throw new Error(`the bucket answered something that is not HTTP/1.1: ${lines[0].slice(0, 80)}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(m[1]), headers, body: "" };
}

/** Reads an answer from a connection: its head, then its body by one of HTTP/1.1's three framings. */
class ConnReader {
  #buf = new Uint8Array(16 * 1024);
  /** Bytes read and not yet used: #buf[#start, #end). */
  #start = 0;
  #end = 0;
  constructor(private conn: Deno.Conn) {}

  async #fill(): Promise<boolean> {
    if (this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buf.length) {
      const grown = new Uint8Array(this.#buf.length * 2);
      grown.set(this.#buf.subarray(this.#start, this.#end));
      this.#end -= this.#start;
      this.#start = 0;
      this.#buf = grown;
    }
    const n = await this.conn.read(this.#buf.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    return true;
  }

  /** Everything read so far was used (nothing of a next answer is buffered). */
  drained() {
    return this.#start === this.#end;
  }

  async head(): Promise<string> {
    for (;;) {
      const text = latin1.decode(this.#buf.subarray(this.#start, this.#end));
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        this.#start += end + 4;
        return text.slice(0, end);
      }
      if (this.#end - this.#start > HEAD_LIMIT) throw new Error("the answer's head is too long");
      if (!await this.#fill()) throw new Error("the connection closed before an answer");
    }
  }

  async exactly(n: number, keep: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error("a bad Content-Length");
    const out: Uint8Array[] = [];
    let kept = 0;
    while (n > 0) {
      if (this.#start === this.#end && !await this.#fill()) throw new Error("the answer ended early");
      const take = Math.min(n, this.#end - this.#start);
      if (kept < keep) {
        out.push(this.#buf.slice(this.#start, this.#start + Math.min(take, keep - kept)));
        kept += out[out.length - 1].length;
      }
      this.#start += take;
      n -= take;
    }
    return Buffer.concat(out);
  }

  async #line(): Promise<string> {
    for (;;) {
      const view = this.#buf.subarray(this.#start, this.#end);
      const at = view.indexOf(10);
      if (at >= 0) {
        this.#start += at + 1;
        return latin1.decode(view.subarray(0, at)).replace(/\r$/, "");
      }
      if (view.length > HEAD_LIMIT) throw new Error("a chunk's line is too long");
      if (!await this.#fill()) throw new Error("the answer ended early");
    }
  }

  async chunked(keep: number): Promise<Uint8Array> {
    const out: Uint8Array[] = [];
    for (;;) {
      const size = parseInt(await this.#line(), 16);
      if (!Number.isSafeInteger(size) || size < 0) throw new Error("a bad chunk size");
      if (size === 0) {
        while (await this.#line() !== ""); // trailers
        return Buffer.concat(out);
      }
      const chunk = await this.exactly(size, Math.max(0, keep - out.reduce((n, c) => n + c.length, 0)));
      if (chunk.length) out.push(chunk);
      await this.#line();
    }
  }

  async toEnd(keep: number): Promise<Uint8Array> {
    const out: Uint8Array[] = [];
    let kept = 0;
    for (;;) {
      const view = this.#buf.subarray(this.#start, this.#end);
      if (kept < keep && view.length) {
        out.push(view.slice(0, keep - kept));
        kept += out[out.length - 1].length;
      }
      this.#start = this.#end;
      if (!await this.#fill()) return Buffer.concat(out);
    }
  }
}
