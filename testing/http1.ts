/**
 * A lean HTTP/1.1 client for the fleet's load generator (scripts/bench/poll_load.ts): keep-alive connections to one
 * origin, one request at a time on each, the status and the whole body read (Content-Length or chunked). Why not
 * `fetch`: on this machine's 2 cores the generator's `fetch` cost ~0.15 ms of CPU per request, a quarter of the
 * machine at 3,300/s, taken from the servers and PostgreSQL under test; this costs ~0.09 ms
 * (docs/DECISIONS.md, "The fleet's load generator speaks HTTP/1.1 itself").
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface Http1Answer {
  status: number;
  body: Uint8Array;
}

/** Thrown for a request that got no complete answer: the connection failed or closed, or the time ran out. */
export class Http1Error extends Error {
  constructor(
    readonly kind: "closed" | "timeout" | "malformed" | "connect",
    message: string,
    /** No byte of the answer had arrived: a kept-alive connection the server had closed, when it was reused. */
    readonly beforeAnswer = false,
  ) {
    super(message);
  }
}

/** Idle connections older than this are closed rather than reused (the server closes idle ones after ~30 s). */
const IDLE_MS = 10_000;

/** Where the head's blank line (CR LF CR LF) begins in buf[0, to), or -1. */
function headEnd(buf: Uint8Array, to: number): number {
  for (let i = 0; i + 3 < to; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

/** One keep-alive connection: a request is written whole, its answer read into one growing buffer. */
class Connection {
  private buf = new Uint8Array(16 * 1024);
  private len = 0;
  closed = false;
  idleSince = 0;

  constructor(private readonly conn: Deno.TcpConn) {}

  close() {
    if (this.closed) return;
    this.closed = true;
    try {
      this.conn.close();
    } catch { /* closed already */ }
  }

  private async fill(): Promise<boolean> {
    if (this.len === this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    const n = await this.conn.read(this.buf.subarray(this.len));
    if (n === null) return false;
    this.len += n;
    return true;
  }

  async exchange(request: Uint8Array): Promise<Http1Answer> {
    this.len = 0;
    try {
      let written = 0;
      while (written < request.length) written += await this.conn.write(request.subarray(written));
      if (!(await this.fill())) throw new Http1Error("closed", "connection closed", true);
    } catch (e) {
      if (e instanceof Http1Error) throw e;
      throw new Http1Error("closed", e instanceof Error ? e.message : String(e), true);
    }
    let head = -1;
    while ((head = headEnd(this.buf, this.len)) < 0) {
      if (!(await this.fill())) throw new Http1Error("closed", "connection closed inside an answer's head");
    }
    const lines = decoder.decode(this.buf.subarray(0, head)).split("\r\n");
    const status = Number(lines[0].slice(9, 12));
    if (!lines[0].startsWith("HTTP/1.") || !(status >= 100 && status < 600)) {
      throw new Http1Error("malformed", `not an HTTP/1 status line: ${lines[0].slice(0, 40)}`);
    }
    let length = -1, chunked = false, keepAlive = true;
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(":");
      const name = lines[i].slice(0, colon).trim().toLowerCase();
      const value = lines[i].slice(colon + 1).trim().toLowerCase();
      if (name === "content-length") length = Number(value);
      else if (name === "transfer-encoding") chunked = value.includes("chunked");
      else if (name === "connection") keepAlive = value !== "close";
    }
    const start = head + 4;
    let body: Uint8Array;
    // No body whatever the headers say (RFC 9112 6.3); this client sends no HEAD and no Expect.
    if (status === 204 || status === 304 || status < 200) body = new Uint8Array(0);
    else if (chunked) body = await this.chunks(start);
    else if (length >= 0) {
      while (this.len - start < length) {
        if (!(await this.fill())) throw new Http1Error("closed", "connection closed inside an answer's body");
      }
      body = this.buf.slice(start, start + length);
    } else {
      // No length: the body runs to the connection's end.
      while (await this.fill()) { /* read on */ }
      body = this.buf.slice(start, this.len);
      keepAlive = false;
    }
    if (!keepAlive) this.close();
    return { status, body };
  }

  /** A chunked body from `at` on, its trailers skipped. */
  private async chunks(at: number): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let pos = at;
    while (true) {
      let eol: number;
      while ((eol = this.lineEnd(pos)) < 0) {
        if (!(await this.fill())) throw new Http1Error("closed", "connection closed inside a chunk's size");
      }
      const size = parseInt(decoder.decode(this.buf.subarray(pos, eol)), 16);
      if (!Number.isFinite(size)) throw new Http1Error("malformed", "a chunk's size is not hexadecimal");
      pos = eol + 2;
      if (size === 0) {
        // Trailers, then the empty line.
        while (true) {
          while ((eol = this.lineEnd(pos)) < 0) {
            if (!(await this.fill())) throw new Http1Error("closed", "connection closed inside trailers");
          }
          const empty = eol === pos;
          pos = eol + 2;
          if (empty) break;
        }
        const total = parts.reduce((n, p) => n + p.length, 0);
        const body = new Uint8Array(total);
        let o = 0;
        for (const p of parts) body.set(p, o), o += p.length;
        return body;
      }
      while (this.len < pos + size + 2) {
        if (!(await this.fill())) throw new Http1Error("closed", "connection closed inside a chunk");
      }
      parts.push(this.buf.slice(pos, pos + size));
      pos += size + 2;
    }
  }

  private lineEnd(from: number): number {
    for (let i = from; i + 1 < this.len; i++) if (this.buf[i] === 13 && this.buf[i + 1] === 10) return i;
    return -1;
  }
}

/** Keep-alive connections to one `http://host:port` origin, as many as requests are open at once. */
export class Http1Pool {
  private readonly idle: Connection[] = [];
  private readonly hostname: string;
  private readonly port: number;
  private readonly host: string;

  constructor(origin: string) {
    const url = new URL(origin);
    if (url.protocol !== "http:") throw new Error(`Http1Pool speaks plain HTTP only, not ${url.protocol}`);
    this.hostname = url.hostname;
    this.port = Number(url.port || 80);
    this.host = url.host;
  }

  /** The request's bytes: `headers` are "Name: value" lines without the Host, Content-Length and Connection. */
  encode(method: string, path: string, headers: string[], body?: Uint8Array): Uint8Array {
    const head = `${method} ${path} HTTP/1.1\r\nhost: ${this.host}\r\n${headers.map((h) => `${h}\r\n`).join("")}${
      body ? `content-length: ${body.length}\r\n` : ""
    }\r\n`;
    const h = encoder.encode(head);
    if (!body) return h;
    const all = new Uint8Array(h.length + body.length);
    all.set(h);
    all.set(body, h.length);
    return all;
  }

  /** Sends `request` (from encode) and reads its answer; rejects with Http1Error after `timeoutMs`. */
  async send(request: Uint8Array, timeoutMs: number): Promise<Http1Answer> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const state: { current?: Connection; timedOut: boolean } = { timedOut: false };
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        state.timedOut = true;
        state.current?.close();
        reject(new Http1Error("timeout", `no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.attempt(request, state), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempt(
    request: Uint8Array,
    state: { current?: Connection; timedOut: boolean },
  ): Promise<Http1Answer> {
    for (let tries = 0;; tries++) {
      if (state.timedOut) throw new Http1Error("timeout", "no answer in time");
      let reused = this.idle.pop();
      while (reused && performance.now() - reused.idleSince > IDLE_MS) {
        reused.close();
        reused = this.idle.pop();
      }
      const c = reused ?? await this.connect();
      state.current = c;
      if (state.timedOut) {
        c.close();
        throw new Http1Error("timeout", "no answer in time");
      }
      try {
        const answer = await c.exchange(request);
        if (!c.closed) {
          c.idleSince = performance.now();
          this.idle.push(c);
        }
        return answer;
      } catch (e) {
        c.close();
        // A kept-alive connection the server had closed meanwhile: sent again once on a new one, as browsers do.
        if (reused && tries === 0 && e instanceof Http1Error && e.beforeAnswer) continue;
        if (e instanceof Http1Error) throw e;
        throw new Http1Error("closed", e instanceof Error ? e.message : String(e));
      }
    }
  }

  private async connect(): Promise<Connection> {
    try {
      const conn = await Deno.connect({ hostname: this.hostname, port: this.port });
      conn.setNoDelay(true);
      return new Connection(conn);
    } catch (e) {
      throw new Http1Error("connect", e instanceof Error ? e.message : String(e));
    }
  }

  close() {
    for (const c of this.idle.splice(0)) c.close();
  }
}
