/**
 * What keeps a request from waiting on a PostgreSQL server that does not answer (docs/REQUIREMENTS.md §19: 503 within 2 s).
 *
 * A stopped server refuses connections at once and a slow one is bounded by its statement and lock timeouts (open.ts),
 * but a frozen one (a hung VM, a partition: TCP still open, nothing answers) holds every query sent on an open
 * connection for as long as TCP keeps it. So:
 * - every pool creates its sockets through a `Sockets`, which can end them all;
 * - the `Watchdog` times every store call; when one has heard nothing for SUSPECT_MS it asks the server, on a
 *   connection of its own, for `SELECT 1`. If that answer does not come within PROBE_MS the server is taken for frozen
 *   and every socket of every pool is ended: their calls fail as unavailable (503), and the server, if it wakes up,
 *   rolls back their transactions. If it comes, the call is only slow (statement_timeout bounds it), and is left alone.
 * Why a probe and not a deadline per statement: docs/DECISIONS.md, "Stores fail fast".
 */
import net from "node:net";

/** A store call that has waited this long makes the watchdog ask the server whether it is alive. */
export const SUSPECT_MS = 700;
/** How long the server has to answer that question before its connections are ended. */
export const PROBE_MS = 800;
const TICK_MS = 100;
/** While the server is taken for frozen, how long its one probe is waited on before another is sent. */
export const REASK_MS = 6_000;
/**
 * POSTGRES_TRACE=1, a diagnostic off by default (scripts/fault_cycles.ts sets it): the probes' verdicts are printed, and
 * runner.ts prints the store calls slower than 1 s with the step they waited on. Read here, not in config.ts: it is
 * for whoever chases a fault, not a setting of the server.
 */
export const TRACE = Deno.env.get("POSTGRES_TRACE") === "1";

const FROZEN = Symbol("the watchdog ended this connection");

/** The error the calls on an ended socket fail with (isUnavailable: a 503). */
export const frozenError = () =>
  Object.assign(
    new Error(`the database did not answer within ${(SUSPECT_MS + PROBE_MS) / 1000} s: its connections were ended`),
    { code: "ETIMEDOUT", [FROZEN]: true },
  );

interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/**
 * The sockets of one pool (the driver's `socket` option), so that they can be ended together. `witness`: bytes read on
 * them tell the watchdog the server is alive; not for a pool whose reads are paced by a slow client (the streamed
 * lists'), where bytes the server sent before it froze may still be read from the socket's buffer long after.
 */
export class Sockets {
  constructor(readonly witness = true) {}

  readonly #open = new Set<net.Socket>();
  #next = 0;
  #heardAt = 0;
  readonly #heard = () => {
    this.#heardAt = performance.now();
  };

  /**
   * A connecting socket (the driver writes its start-up message once it connects; a refused or timed-out connect
   * closes it and the driver's call fails). Never rejects: a rejected socket would leave the driver's connection
   * slot stuck in "connecting".
   */
  readonly create = (o: SocketOptions): net.Socket => {
    const i = this.#next++ % Math.max(1, o.host.length);
    const socket = o.path ? net.connect(o.path) : net.connect(o.port[i] ?? o.port[0], o.host[i]);
    // The driver reads these for TLS's server name and its error messages.
    Object.assign(socket, { host: o.host[i], port: o.port[i] ?? o.port[0] });
    this.#open.add(socket);
    if (this.witness) socket.on("data", this.#heard);
    socket.once("close", () => this.#open.delete(socket));
    return socket;
  };

  /** `secure`, the TLS socket over `raw` (tls.ts), is the one the driver reads: the one to end in its place. */
  readonly adopt = (raw: net.Socket, secure: net.Socket): void => {
    this.#open.delete(raw);
    this.#open.add(secure);
    if (this.witness) {
      raw.off("data", this.#heard);
      secure.on("data", this.#heard);
    }
    secure.once("close", () => this.#open.delete(secure));
  };

  /** When one of these sockets last received bytes from the server (0: never). */
  get heardAt(): number {
    return this.#heardAt;
  }

  /** Sockets open or connecting. */
  get size(): number {
    return this.#open.size;
  }

  /**
   * Fails every call on these sockets, then closes them. The error comes first and the close on a later turn: the
   * driver rolls a failed transaction back on its connection right away, and a write on a connection it has already
   * seen closed throws outside any call (npm postgres 3.4.9), which would end the process.
   */
  endAll(): void {
    const sockets = [...this.#open];
    this.#open.clear();
    for (const socket of sockets) if (socket.listenerCount("error") > 0) socket.emit("error", frozenError());
    setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, 0);
  }
}

export class Watchdog {
  /** Each call watched: when it started, and what fails it where it waits (watch()). */
  readonly #pending = new Map<number, { started: number; abort?: (err: Error) => void }>();
  #ids = 0;
  #tick: ReturnType<typeof setInterval> | undefined;
  /** When the server last answered a probe (the probe's start). */
  #aliveAt = 0;
  #probing = false;
  #closed = false;
  /** The server is taken for frozen: its connections were ended, and no call is sent until a probe is answered. */
  #frozen = false;
  /** The probe sent last, until it settles, and when. */
  #asking: Promise<unknown> | undefined;
  #askedAt = 0;

  /** `probe` resolves when the server answers a trivial query on a connection of its own. */
  constructor(private readonly probe: () => Promise<unknown>, private readonly pools: readonly Sockets[]) {}

  /** While the server is taken for frozen (its last probe unanswered). */
  get frozen(): boolean {
    return this.#frozen;
  }

  /**
   * Throws the unavailable error while the server is taken for frozen: the call fails at once, and neither it nor the
   * connection it would make waits in the frozen server's queue; the probe alone asks until the server answers.
   */
  refuse(): void {
    if (this.#frozen) throw frozenError();
  }

  /**
   * Watches a store call (started just now) until it settles. `abort` is called on each verdict that the server is
   * gone (stopped, refusing or frozen): the call fails at once wherever it only waits (runner.ts), rather than when
   * the driver's turn comes to try a connection for it (one at a time, each after the last one failed).
   */
  watch<T>(call: Promise<T>, abort?: (err: Error) => void): Promise<T> {
    const id = ++this.#ids;
    this.#pending.set(id, { started: performance.now(), abort });
    this.#ticking();
    return call.finally(() => this.#done(id));
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#tick);
    this.#tick = undefined;
  }

  #ticking(): void {
    if (this.#tick !== undefined || this.#closed) return;
    const tick = setInterval(() => this.#check(), TICK_MS);
    Deno.unrefTimer(tick);
    this.#tick = tick;
  }

  #done(id: number): void {
    this.#pending.delete(id);
    this.#stopIfIdle();
  }

  /** No call to watch and the server not taken for frozen: no tick. */
  #stopIfIdle(): void {
    if (this.#pending.size === 0 && !this.#frozen && this.#tick !== undefined) {
      clearInterval(this.#tick);
      this.#tick = undefined;
    }
  }

  #check(): void {
    if (this.#probing) return;
    const now = performance.now();
    let oldest = Infinity;
    for (const { started } of this.#pending.values()) oldest = Math.min(oldest, started);
    // Taken for frozen: asked again at once.
    if (!this.#frozen && (oldest === Infinity || now - Math.max(oldest, this.#aliveAt) < SUSPECT_MS)) return;
    this.#probing = true;
    answeredWithin(this.#ask(), PROBE_MS).then((verdict) => {
      const answered = verdict === "answered";
      this.#probing = false;
      // No answer yet, but bytes from the server on another connection since the probe was sent: it is alive (after a
      // thaw a connection queued earlier may be answered first), only slow for this call. Not when the probe failed: a
      // server shutting down still sends its refusals.
      const alive = answered || (verdict === "silent" && this.#heardAt() > now);
      if (TRACE) {
        console.error(
          `POSTGRES_TRACE ${new Date().toISOString()} probe${this.#frozen ? " (taken for frozen)" : ""} after ${
            (now - Math.min(oldest, now)).toFixed(0)
          } ms of waiting: ${
            answered
              ? "alive"
              : alive
              ? "no answer, but the server sent bytes since"
              : `${verdict === "failed" ? "refused" : "no answer"}: ending ${
                this.pools.map((p) => p.size).join("+")
              } sockets`
          } (${this.#pending.size} calls pending)`,
        );
      }
      if (answered) this.#aliveAt = now;
      if (alive) {
        this.#frozen = false;
        this.#stopIfIdle();
        return;
      }
      if (!this.#frozen && !this.#closed) {
        this.#frozen = true;
        this.#ticking();
        for (const pool of this.pools) pool.endAll();
      }
      for (const { abort } of [...this.#pending.values()]) abort?.(frozenError());
    });
  }

  /**
   * The probe: a new one, or while the server is taken for frozen the one still unanswered. Its connection then waits
   * in the server's accept queue (connect_timeout bounds it); a connection ended there would still cost the server a
   * backend's start after a thaw, ahead of the next one's (~80 ms each on the loaded test machine).
   */
  #ask(): Promise<unknown> {
    const now = performance.now();
    if (this.#frozen && this.#asking) {
      if (now - this.#askedAt < REASK_MS) return this.#asking;
      // Unanswered and unfailed this long (connect_timeout fails a connect sooner): asked again on a fresh connection,
      // so that no stuck connection can keep the server taken for frozen.
      for (const pool of this.pools) pool.endAll();
    }
    this.#askedAt = now;
    const asking = this.probe();
    const settled = () => {
      if (this.#asking === asking) this.#asking = undefined;
    };
    asking.then(settled, settled);
    this.#asking = asking;
    return asking;
  }

  /** When the server last sent bytes on a connection of any of the pools. */
  #heardAt(): number {
    let at = 0;
    for (const pool of this.pools) at = Math.max(at, pool.heardAt);
    return at;
  }
}

/**
 * Whether `probe` settles within `ms` of this process's own time: "answered", "failed" (refused: a server stopping or
 * stopped) or "silent". A deadline that finds the process itself stalled (its timer late by more than LATE_MS: a long
 * synchronous task, a descheduled container) waits once more, as long as it was late (at most half of `ms`), and the
 * verdict is taken after pending I/O was read (an answer that came counts).
 */
function answeredWithin(probe: Promise<unknown>, ms: number): Promise<"answered" | "failed" | "silent"> {
  return new Promise((resolve) => {
    let settled: "answered" | "failed" | null = null;
    probe.then(() => settled = "answered", () => settled = "failed").then(() => resolve(settled!));
    const wait = (forMs: number, extensions: number) => {
      const due = performance.now() + forMs;
      setTimeout(() =>
        setImmediate(() => {
          if (settled !== null) return;
          const late = performance.now() - due;
          if (late > LATE_MS && extensions > 0) wait(Math.min(late, ms / 2), extensions - 1);
          else resolve("silent");
        }), forMs);
    };
    wait(ms, 1);
  });
}

/** A timer this late means the process, not the database, was not listening. */
const LATE_MS = 150;

/**
 * Keeps `size` connections of a pool open: at start and again whenever fewer are open (after a restart of the
 * database, within KEEP_WARM_MS of its return), so that a burst never waits for connections to be made; not while
 * `paused` (the watchdog takes the server for frozen: a connection made then would only wait in its queue).
 */
export function keepWarm(
  sockets: Sockets,
  size: number,
  open: () => Promise<unknown>,
  paused: () => boolean = () => false,
): { close(): void } {
  let running = false;
  const fill = async () => {
    if (running || sockets.size >= size || paused()) return;
    running = true;
    try {
      // Concurrent queries: each one that finds no idle connection makes a closed one connect.
      await Promise.allSettled(Array.from({ length: size - sockets.size }, open));
    } finally {
      running = false;
    }
  };
  void fill();
  const timer = setInterval(fill, KEEP_WARM_MS);
  Deno.unrefTimer(timer);
  return { close: () => clearInterval(timer) };
}

const KEEP_WARM_MS = 250;

let held = false;
/**
 * Two faults of npm postgres 3.4.9 that a lost connection sets off outside any call, each of which would end the
 * process, are held (the calls themselves have failed as unavailable):
 * - a statement a transaction sends after its connection was lost (its ROLLBACK) is written, on a later turn, to the
 *   socket the driver has already dropped: a TypeError;
 * - a new connection's own query for the array types is not awaited by anyone: when that connection is lost while it
 *   runs (the watchdog ends it, or the database stops or resets it: `read ECONNRESET`), its rejection is unhandled.
 *   The watchdog's own error is held, and any rejection of that one query (the driver names the query on the error).
 * Installed by openPostgresStores, so that every process holding the stores (the server, the CLI, the tests) has it.
 */
export function holdDriverFaults(): void {
  if (held) return;
  held = true;
  globalThis.addEventListener("error", (event) => {
    const err = event.error;
    if (
      err instanceof TypeError && /reading 'write'/.test(err.message) &&
      /postgres\S*\/src\/connection\.js/.test(err.stack ?? "")
    ) event.preventDefault();
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    const reason = event.reason as { [FROZEN]?: boolean; query?: unknown } | null;
    if (reason?.[FROZEN] || isArrayTypesQuery(reason?.query)) event.preventDefault();
  });
}

/** The driver's query for the array types, which each new connection sends and no caller awaits. */
const isArrayTypesQuery = (query: unknown): boolean =>
  typeof query === "string" && query.includes("pg_catalog.pg_type") && query.includes("typcategory = 'A'");
