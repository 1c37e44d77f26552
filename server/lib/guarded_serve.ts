/**
 * Slow clients dropped in process (docs/REQUIREMENTS.md §15, §19), for the single container without a proxy. Deno.serve has no
 * header timeout and no limit on connections (nor does Deno's node:http, which runs on it), so the public port is a
 * small TCP front in this process: it reads each request's header itself, with a deadline, and only a complete header
 * is passed over loopback to Deno.serve, which does all the HTTP. So:
 *
 * - a request's header must arrive within `headerTimeoutMs` of the connection (or of its first byte, for the next
 *   request on a kept-alive connection), else the connection is closed;
 * - a kept-alive connection idle (nothing sent either way) for `idleTimeoutMs` after an answer is closed;
 * - at most `maxHalfOpen` connections may be waiting for a request (its header incomplete, or idle after an answer);
 *   one more closes the one that has waited longest (idle ones by their last byte, so a download in progress is last);
 * - a first header over `maxHeaderBytes` is answered 431 and closed.
 *
 * A connection waiting for its first header holds a 4 KiB read buffer and no loopback connection, so a thousand of
 * them cost a few MiB and nothing of the server's time. Upload bodies that stall are the routes' business
 * (BODY_IDLE_SECONDS). The handler sees the client's address in `info.remoteAddr`, as with Deno.serve alone.
 *
 * Request boundaries after the first are told from the direction of the bytes (client bytes after answer bytes start
 * a request; `100 Continue` and other 1xx answers do not count as answers), without parsing HTTP: a misjudged boundary
 * can only leave a request unpoliced, never cut one short.
 */

export interface GuardOptions {
  hostname: string;
  port: number;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  maxHalfOpen: number;
  maxHeaderBytes?: number;
  onListen?: (addr: Deno.NetAddr) => void;
  /** Called for each connection the front closes for being slow. */
  onDrop?: (reason: DropReason) => void;
}

export type Handler = (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response>;

const HEADER_READ_BYTES = 4096;
/** Pump reads start small and double while they come back full, up to this; an idle connection holds a small one. */
const PUMP_MIN_BYTES = 4096;
const PUMP_MAX_BYTES = 64 * 1024;
/** A buffer up to this size is kept through the small last piece of a message (see reader). */
const PUMP_KEEP_BYTES = 16 * 1024;
const SWEEP_MS = 1000;
/** At shutdown, how long answers already written by the server may take to reach their clients. */
const FLUSH_MS = 2000;
const END = [13, 10, 13, 10];

/** header: its header is incomplete; request: in the server's hands; answered: answer bytes went out since. */
type State = "header" | "request" | "answered";

interface Guarded {
  outer: Deno.TcpConn;
  inner?: Deno.TcpConn;
  remote: Deno.NetAddr;
  state: State;
  /** When it is closed unless it moves on: the header's deadline, or the idle deadline after an answer. */
  deadline: number;
  /** How many bytes of "\r\n\r\n" the header's bytes so far end with. */
  matched: number;
  closed: boolean;
}

/** Why the front closed a connection (console_connections_dropped_total). */
export type DropReason = "header_timeout" | "idle" | "evicted" | "header_too_large";

export interface GuardedServer extends Deno.HttpServer<Deno.NetAddr> {
  /** Connections waiting for a request now. */
  halfOpen(): number;
  /** Which front: Deno's server per connection (./direct_serve.ts), or this relay. */
  form: "direct" | "relay";
}

/** Where `bytes` completes "\r\n\r\n" given `matched` bytes of it already seen: the index after it, or -1 (and the new match). */
function findEnd(bytes: Uint8Array, matched: number): { end: number; matched: number } {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === END[matched]) matched++;
    else matched = b === 13 ? 1 : 0;
    if (matched === 4) return { end: i + 1, matched: 0 };
  }
  return { end: -1, matched };
}

/** True when answer bytes start an interim (1xx) response: "HTTP/1.x 1". */
const interim = (b: Uint8Array) => b.length >= 10 && b[0] === 72 && b[8] === 32 && b[9] === 49;

/**
 * Reads chunks into a buffer that grows while reads fill it and shrinks back when they come back mostly empty. The
 * buffer is reused: a chunk is valid until the next read (the pumps write each one out before reading again).
 *
 * `starts()`, asked once a chunk is read (before the pump acts on it), tells whether the chunk starts a message (a
 * request, or an answer) rather than continues one. Only such a chunk, or a small one in a buffer past PUMP_KEEP_BYTES,
 * shrinks the buffer: the last piece of a message is usually small, and shrinking on it made a 10 KB answer take two or
 * three reads (and as many writes to the client) on every request, the buffer going 4 → 8 → 16 → 4 KiB. Now a
 * connection that carries answers of up to 16 KiB keeps a buffer they fit in; one that carried a large download still
 * shrinks on its tail.
 */
class Pump {
  #buf = new Uint8Array(PUMP_MIN_BYTES);
  constructor(readonly conn: Deno.Conn, readonly starts: () => boolean) {}

  /** The next read's byte count (null at the end): the pumps await the read itself, with no async frame around it. */
  read(): Promise<number | null> {
    return this.conn.read(this.#buf);
  }

  /** The `n` bytes just read; the buffer is resized for the next read. */
  chunk(n: number): Uint8Array {
    const buf = this.#buf;
    if (n === buf.length && n < PUMP_MAX_BYTES) this.#buf = new Uint8Array(n * 2);
    else if (n < buf.length / 4 && buf.length > PUMP_MIN_BYTES && (buf.length > PUMP_KEEP_BYTES || this.starts())) {
      this.#buf = new Uint8Array(PUMP_MIN_BYTES);
    }
    return buf.subarray(0, n);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** Accepts connections until the listener closes, handing each to `take`; the fronts' accept loop. */
export async function acceptEach(
  listener: Deno.Listener,
  stopping: () => boolean,
  take: (conn: Deno.TcpConn) => void,
): Promise<void> {
  for (;;) {
    let conn: Deno.TcpConn;
    try {
      conn = await listener.accept() as Deno.TcpConn;
    } catch (err) {
      if (stopping() || err instanceof Deno.errors.BadResource) return;
      // Out of file descriptors and the like: wait a moment rather than spin.
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    take(conn);
  }
}

export function serveGuarded(opts: GuardOptions, handler: Handler): GuardedServer {
  const maxHeaderBytes = opts.maxHeaderBytes ?? 32 * 1024;
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const dropped = (reason: DropReason) => opts.onDrop?.(reason);
  /** The loopback port of each inner connection → the client it carries. */
  const clients = new Map<number, Deno.NetAddr>();
  const inner = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req, info) => handler(req, { ...info, remoteAddr: clients.get(info.remoteAddr.port) ?? info.remoteAddr }),
  );
  const innerPort = inner.addr.port;
  /** Connections waiting for a request (states header and answered), the longest waiting first. */
  const halfOpen = new Set<Guarded>();
  const all = new Set<Guarded>();
  let stopping = false;
  /** Every connection's carrying task: at shutdown, answers still on their way out are let through. */
  const carrying = new Set<Promise<void>>();

  const close = (g: Guarded) => {
    if (g.closed) return;
    g.closed = true;
    halfOpen.delete(g);
    all.delete(g);
    for (const conn of [g.outer, g.inner]) {
      try {
        conn?.close();
      } catch { /* closed already */ }
    }
  };

  /** Puts `g` last in the waiting order, closing the longest waiting beyond the cap. */
  const wait = (g: Guarded, state: State, deadline: number) => {
    g.state = state;
    g.deadline = deadline;
    halfOpen.delete(g);
    halfOpen.add(g);
    while (halfOpen.size > opts.maxHalfOpen) {
      const oldest = halfOpen.values().next().value!;
      dropped("evicted");
      close(oldest);
    }
  };

  const waitForHeader = (g: Guarded) => {
    g.matched = 0;
    wait(g, "header", Date.now() + opts.headerTimeoutMs);
  };

  const inRequest = (g: Guarded) => {
    halfOpen.delete(g);
    g.state = "request";
  };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const g of halfOpen) {
      if (g.deadline > now) continue;
      dropped(g.state === "header" ? "header_timeout" : "idle");
      close(g);
    }
  }, SWEEP_MS);

  /** Reads the first header; then connects to the inner server and pumps both ways. */
  const carry = async (g: Guarded) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const buf = new Uint8Array(HEADER_READ_BYTES);
      const n = await g.outer.read(buf);
      if (n === null || g.closed) return close(g);
      const chunk = buf.subarray(0, n);
      chunks.push(chunk);
      size += n;
      const found = findEnd(chunk, g.matched);
      g.matched = found.matched;
      if (found.end >= 0) break;
      if (size > maxHeaderBytes) {
        dropped("header_too_large");
        await writeAll(g.outer, tooLarge).catch(() => {});
        return close(g);
      }
    }
    inRequest(g);
    if (stopping) return close(g);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: innerPort });
    if (g.closed) return conn.close();
    // The pumps pass an answer on in the pieces they read it in: with Nagle's algorithm the second piece waits for the
    // client's delayed ACK of the first (40 ms on Linux): a 10 KB page went at 200 req/s instead of thousands.
    conn.setNoDelay(true);
    g.outer.setNoDelay(true);
    g.inner = conn;
    const port = conn.localAddr.port;
    clients.set(port, g.remote);
    const first = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      first.set(c, at);
      at += c.length;
    }
    try {
      await writeAll(conn, first);
      await Promise.all([clientToServer(g, conn), serverToClient(g, conn)]);
    } finally {
      clients.delete(port);
      close(g);
    }
  };

  const clientToServer = async (g: Guarded, conn: Deno.TcpConn) => {
    // A chunk read once the previous request was answered starts the next one.
    const pump = new Pump(g.outer, () => g.state === "answered");
    for (;;) {
      const read = await pump.read();
      if (read === null) {
        await conn.closeWrite().catch(() => {});
        return;
      }
      const chunk = pump.chunk(read);
      if (g.state === "answered") waitForHeader(g);
      if (g.state === "header") {
        const found = findEnd(chunk, g.matched);
        g.matched = found.matched;
        if (found.end >= 0) inRequest(g);
      }
      // One write as a rule; the rest only if the socket took part of it (one async frame fewer per chunk).
      const n = await conn.write(chunk);
      if (n < chunk.length) await writeAll(conn, chunk.subarray(n));
    }
  };

  const serverToClient = async (g: Guarded, conn: Deno.TcpConn) => {
    // A chunk read while no answer bytes went out since the request starts an answer.
    const pump = new Pump(conn, () => g.state === "request");
    for (;;) {
      const read = await pump.read();
      if (read === null) return close(g);
      const chunk = pump.chunk(read);
      const answering = g.state === "answered" || (g.state === "request" && !interim(chunk));
      const n = await g.outer.write(chunk);
      if (n < chunk.length) await writeAll(g.outer, chunk.subarray(n));
      // Each answer byte that went out moves the idle deadline (and the place in the waiting order).
      if (answering && g.state !== "header") wait(g, "answered", Date.now() + opts.idleTimeoutMs);
    }
  };

  const accepting = acceptEach(listener, () => stopping, (outer) => {
    const g: Guarded = { outer, remote: outer.remoteAddr, state: "header", deadline: 0, matched: 0, closed: false };
    all.add(g);
    waitForHeader(g);
    const carried: Promise<void> = carry(g).catch(() => close(g)).finally(() => carrying.delete(carried));
    carrying.add(carried);
  });

  const addr = listener.addr as Deno.NetAddr;
  opts.onListen?.(addr);

  let shut: Promise<void> | undefined;
  const shutdown = () =>
    shut ??= (async () => {
      stopping = true;
      listener.close();
      // Headers not yet complete go; idle kept-alive connections close with the inner server's, and a download in
      // progress (an "answered" connection too) is let finish, as Deno.serve's own shutdown does.
      for (const g of halfOpen) if (g.state === "header") close(g);
      // Requests in flight finish; then the inner server closes its connections, and ours close once the last answer
      // bytes are through (a moment at most; then they are closed anyway).
      await inner.shutdown();
      await Promise.race([Promise.all(carrying), new Promise((r) => setTimeout(r, FLUSH_MS))]);
      clearInterval(sweep);
      for (const g of all) close(g);
      await accepting;
    })();

  return {
    addr,
    finished: inner.finished,
    shutdown,
    ref: () => inner.ref(),
    unref: () => inner.unref(),
    [Symbol.asyncDispose]: shutdown,
    halfOpen: () => halfOpen.size,
    form: "relay",
  };
}

export const TOO_LARGE_BODY = JSON.stringify({ error: "invalid_request", msg: "The request header is too large." });
const tooLarge = new TextEncoder().encode(
  "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nConnection: close\r\n" +
    `Content-Length: ${TOO_LARGE_BODY.length}\r\n\r\n${TOO_LARGE_BODY}`,
);
