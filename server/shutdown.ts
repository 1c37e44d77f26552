import { clearTmpSync } from "./bootstrap.ts";
import type { Paths } from "./context.ts";
import type { OpenStores } from "./db/stores.ts";
import { FilesUnavailableError, type FirmwareFiles } from "./files/firmware_files.ts";
import { stopWebBuild } from "./web_bundle.ts";

export interface ShutdownOptions {
  stores: OpenStores;
  files: FirmwareFiles;
  paths: Paths;
  /** How long requests in flight may take to finish before they are discarded. */
  graceMs: number;
  log: (line: string) => void;
  /** Runs once before the stores close (the last audit checkpoint). */
  beforeClose?: () => Promise<void>;
}

type Handler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

export interface GracefulShutdown {
  /** Wraps the app's handler: counts requests in flight, refuses new ones (503) once stopping. */
  wrap(handler: Handler): Handler;
  /** Call once Deno.serve has returned the server. */
  serving(server: Deno.HttpServer): void;
  /** Stops as on SIGTERM, for another reason (the launcher in front of the server is gone: shared/launcher.ts). */
  stop(reason: string): void;
}

/**
 * A signal within this long of the first is a copy of the same stop, not the operator insisting: Ctrl-C reaches every
 * process of the terminal's group and `deno task` (and `timeout`, systemd's control-group stop) forwards it too, so one
 * stop arrives two or three times within milliseconds. A signal after this long skips the wait.
 */
export const COPY_WINDOW_MS = 2000;

/**
 * SIGTERM / SIGINT: refuse new requests with 503, let requests in flight finish for up to graceMs,
 * then sweep what an unfinished upload or import left, close the database and exit 0.
 * Copies of the signal arriving within COPY_WINDOW_MS are ignored; a signal after that skips the wait.
 *
 * Deno's server.shutdown() alone is not enough: it cuts the body of a request still being received
 * (an upload in progress fails). So requests are drained first and shutdown() runs once none is left.
 * Installed before the server listens, so a signal right after "Listening" never meets the default action.
 */
export function handleShutdownSignals(opts: ShutdownOptions): GracefulShutdown {
  const { stores, files, paths, graceMs, log } = opts;
  let stopping = false;
  let server: Deno.HttpServer | undefined;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  // The firmware ids are read and the stores closed in one turn (SQLite runs each store call to completion as it is
  // made): no row can be committed after the read, since a late upload's insert fails and removes its own file. So the
  // sweep never removes a file whose row exists, and a file put in place during the sweep is removed by its upload.
  let finishing = false;
  const finish = async () => {
    if (finishing) return;
    finishing = true;
    stopWebBuild();
    await opts.beforeClose?.().catch(() => {});
    try {
      const ids = stores.firmwares.ids();
      const closed = stores.close();
      const [firmwareIds] = await Promise.all([ids, closed]);
      const removed = clearTmpSync(paths);
      if (removed) log(`Discarded ${removed} unfinished upload(s) or import(s).`);
      await files.sweep(firmwareIds).catch((err) => {
        // A bucket out of reach is swept by the next start or another replica's hourly sweep.
        if (!(err instanceof FilesUnavailableError)) throw err;
        log(`WARNING: firmware files were not swept: ${err.message}`);
      });
    } catch (err) {
      log(`ERROR while stopping: ${err instanceof Error ? err.message : String(err)}`);
      Deno.exit(1);
    }
    log("Stopped.");
    Deno.exit(0);
  };

  const stop = async (signal: string) => {
    log(
      `${signal}: refusing new requests; finishing ${inFlight} request(s) in flight (up to ${graceMs / 1000} s; ` +
        `a signal again after ${COPY_WINDOW_MS / 1000} s stops without waiting).`,
    );
    const deadline = new Promise<"late">((r) => setTimeout(() => r("late"), graceMs));
    const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => drained = r);
    // shutdown() then also waits for response bodies still being sent (downloads).
    const done = idle.then(() => server!.shutdown());
    if (await Promise.race([done, deadline]) === "late") log("Grace period over: discarding requests still in flight.");
    finish();
  };

  let stoppedAt = 0;
  let copies = 0;
  const onSignal = (signal: string, external = false) => {
    if (stopping) {
      // Only a signal is the operator insisting; a launcher gone while stopping changes nothing.
      if (external || finishing) return;
      if (performance.now() - stoppedAt < COPY_WINDOW_MS) {
        if (copies++ === 0) log(`${signal} again at once: a copy of the same stop (the wait goes on).`);
        return;
      }
      log(`${signal} again: stopping without waiting.`);
      return finish();
    }
    stopping = true;
    stoppedAt = performance.now();
    if (!server) {
      log(`${signal} while starting: stopping.`);
      return finish();
    }
    stop(signal);
  };

  for (const signal of ["SIGTERM", "SIGINT"] as const) Deno.addSignalListener(signal, () => onSignal(signal));

  return {
    wrap: (handler) => async (req, info) => {
      if (stopping) {
        return Response.json(
          { error: "unavailable", msg: "The server is stopping; try again in a moment." },
          { status: 503, headers: { Connection: "close", "Retry-After": "5" } },
        );
      }
      inFlight++;
      try {
        return await handler(req, info);
      } finally {
        if (--inFlight === 0 && drained) drained();
      }
    },
    serving(s) {
      server = s;
    },
    stop: (reason) => onSignal(reason, true),
  };
}
