/**
 * The connection front without a relay (docs/REQUIREMENTS.md §19; the relay it replaces: ./guarded_serve.ts). Each
 * accepted connection is served by Deno's own HTTP server for one connection (`serveHttpOnConnection`, internal to
 * Deno 2.9: Rust reads and writes the socket, as under Deno.serve), and the front keeps its deadlines from what it sees
 * without the bytes:
 *
 * - waiting for its first request from the accept: its handler must be called within `headerTimeoutMs`, else the
 *   connection is closed;
 * - in request while a request is in the handler or its answer is being sent (`info.completed`);
 * - answered once the last answer is through: the next request must reach the handler within `idleTimeoutMs`, else the
 *   connection is closed (so a kept-alive connection's next header is held to the idle window from the last answer,
 *   not to `headerTimeoutMs` from its first byte: the front sees no bytes);
 * - an answer that declares at least WATCH_BYTES (a download) is watched as it is read out: no progress for
 *   `idleTimeoutMs` closes the connection (a client that stopped reading);
 * - at most `maxHalfOpen` connections may wait for a request (first or next); one more closes the one that has waited
 *   longest;
 * - a first header over `maxHeaderBytes` is answered 431 and the connection closed (over Deno's own limit, 64 KiB,
 *   Deno answers 400 itself).
 *
 * Overdue connections are closed by force (Deno's own forced close of that connection: mid-header, mid-answer alike).
 */
import {
  acceptEach,
  type DropReason,
  type GuardedServer,
  type GuardOptions,
  type Handler,
  TOO_LARGE_BODY,
} from "./guarded_serve.ts";
import { isUnwatched } from "./unwatched_answers.ts";

/** The per-connection server Deno returns. */
interface ConnectionServer {
  finished: Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Deno's `serveHttpOnConnection(conn, signal, handler, onError, onListen)`. The signal is only asked for an "abort"
 * listener (the connection's forced close): the front passes an object that keeps that listener, so it can call it
 * itself inside a try (a real AbortSignal aborted after Deno closed the connection's resource throws from the listener,
 * which ends the process).
 */
type ServeOnConnection = (
  conn: Deno.TcpConn,
  signal: { addEventListener(type: string, listener: () => void): void },
  handler: Handler,
  onError: (error: unknown) => Response,
  onListen: () => void,
) => ConnectionServer;

/** Deno's per-connection server if this Deno has it (an internal API, pinned Deno 2.9.6), else null. */
export function serveOnConnection(): ServeOnConnection | null {
  // deno-lint-ignore no-explicit-any
  const denoAny = Deno as any;
  const internal = denoAny.internal === undefined ? undefined : denoAny[denoAny.internal];
  const f = internal?.serveHttpOnConnection;
  return typeof f === "function" && f.length === 5 ? f as ServeOnConnection : null;
}

const SWEEP_MS = 1000;
/** Answers declaring at least this many bytes are watched for progress while they are read out. */
const WATCH_BYTES = 64 * 1024;

type State = "header" | "request" | "answered";

interface Conn {
  state: State;
  /** When it is closed unless it moves on (header, answered) or its watched answer moves (stalled). */
  deadline: number;
  /** Requests handed to the handler so far, and those not yet answered in full. */
  served: number;
  active: number;
  /** Watched answers being read out now. */
  streaming: number;
  stallDeadline: number;
  /** Deno's forced close of this connection (its server's abort listener). */
  cancel?: () => void;
  server?: ConnectionServer;
  closed: boolean;
}

/** The size of a request's header as sent, near enough: request line and header lines. */
function headerBytes(req: Request): number {
  let n = req.method.length + req.url.length + 12;
  for (const [name, value] of req.headers) n += name.length + value.length + 4;
  return n;
}

function internalError(error: unknown): Response {
  console.error(error);
  return new Response("Internal Server Error", { status: 500 });
}

export function serveDirect(opts: GuardOptions, handler: Handler, serveOn: ServeOnConnection): GuardedServer {
  const maxHeaderBytes = opts.maxHeaderBytes ?? 32 * 1024;
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const dropped = (reason: DropReason) => opts.onDrop?.(reason);
  /** Connections waiting for a request (states header and answered), the longest waiting first. */
  const halfOpen = new Set<Conn>();
  /** Connections with a watched answer being read out. */
  const streaming = new Set<Conn>();
  const all = new Set<Conn>();
  let stopping = false;

  const force = (c: Conn) => {
    if (c.closed) return;
    c.closed = true;
    halfOpen.delete(c);
    streaming.delete(c);
    try {
      c.cancel?.();
    } catch { /* Deno closed it already */ }
  };

  const forget = (c: Conn) => {
    c.closed = true;
    halfOpen.delete(c);
    streaming.delete(c);
    all.delete(c);
  };

  /** Puts `c` last in the waiting order, closing the longest waiting beyond the cap. */
  const wait = (c: Conn, state: State, deadline: number) => {
    c.state = state;
    c.deadline = deadline;
    halfOpen.delete(c);
    halfOpen.add(c);
    while (halfOpen.size > opts.maxHalfOpen) {
      dropped("evicted");
      force(halfOpen.values().next().value!);
    }
  };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const c of halfOpen) {
      if (c.deadline > now) continue;
      dropped(c.served === 0 ? "header_timeout" : "idle");
      force(c);
    }
    for (const c of streaming) {
      if (c.stallDeadline > now) continue;
      dropped("idle");
      force(c);
    }
  }, SWEEP_MS);

  /** The answer's body, passed through with each piece read out moving the connection's stall deadline. */
  const watched = (c: Conn, res: Response): Response => {
    const body = res.body!;
    const reader = body.getReader();
    const moved = () => c.stallDeadline = Date.now() + opts.idleTimeoutMs;
    const end = () => {
      if (--c.streaming === 0) streaming.delete(c);
    };
    c.streaming++;
    moved();
    streaming.add(c);
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            return controller.close();
          }
          moved();
          controller.enqueue(value);
        } catch (err) {
          end();
          throw err;
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    return new Response(stream, { status: res.status, statusText: res.statusText, headers: res.headers });
  };

  const answered = (c: Conn) => {
    if (--c.active === 0 && !c.closed) wait(c, "answered", Date.now() + opts.idleTimeoutMs);
  };

  const watch = (c: Conn, res: Response): Response => {
    if (isUnwatched(res)) return res;
    const length = res.headers.get("content-length");
    return length !== null && Number(length) >= WATCH_BYTES && res.body ? watched(c, res) : res;
  };

  const serveConnection = (c: Conn): Handler => (req, info) => {
    c.active++;
    if (c.state !== "request") {
      halfOpen.delete(c);
      c.state = "request";
    }
    const done = () => answered(c);
    info.completed.then(done, done);
    if (c.served++ === 0 && headerBytes(req) > maxHeaderBytes) {
      dropped("header_too_large");
      c.served = Infinity;
      return new Response(TOO_LARGE_BODY, {
        status: 431,
        headers: { "Content-Type": "application/json", Connection: "close" },
      });
    }
    const res = handler(req, info);
    return res instanceof Promise ? res.then((r) => watch(c, r)) : watch(c, res);
  };

  const accepting = acceptEach(listener, () => stopping, (conn) => {
    if (stopping) return conn.close();
    const c: Conn = {
      state: "header",
      deadline: 0,
      served: 0,
      active: 0,
      streaming: 0,
      stallDeadline: 0,
      closed: false,
    };
    const signal = {
      addEventListener: (type: string, listener: () => void) => {
        if (type === "abort") c.cancel = listener;
      },
    };
    try {
      c.server = serveOn(conn, signal, serveConnection(c), internalError, () => {});
    } catch {
      try {
        conn.close();
      } catch { /* closed already */ }
      return;
    }
    all.add(c);
    wait(c, "header", Date.now() + opts.headerTimeoutMs);
    const gone = () => forget(c);
    c.server.finished.then(gone, gone);
  });

  const addr = listener.addr as Deno.NetAddr;
  opts.onListen?.(addr);

  let finish: () => void;
  const finished = new Promise<void>((r) => finish = r);
  let shut: Promise<void> | undefined;
  const shutdown = () =>
    shut ??= (async () => {
      stopping = true;
      listener.close();
      await accepting;
      // Connections waiting for their first request go now; the others close once their requests in flight are
      // answered (downloads in progress included), idle ones at once: Deno's graceful close of each.
      for (const c of [...halfOpen]) if (c.state === "header") force(c);
      await Promise.all([...all].map((c) => c.server!.shutdown().catch(() => {})));
      clearInterval(sweep);
      finish();
    })();

  return {
    addr,
    finished,
    shutdown,
    ref: () => listener.ref(),
    unref: () => listener.unref(),
    [Symbol.asyncDispose]: shutdown,
    halfOpen: () => halfOpen.size,
    form: "direct",
  };
}
