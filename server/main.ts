import { createApp } from "./app.ts";
import { loadSecret } from "./auth/secret.ts";
import {
  assertWritable,
  bootstrapOperator,
  cleanUpAfterCrash,
  ensureDirectories,
  pruneKeptCounts,
  sweepFirmwareFiles,
} from "./bootstrap.ts";

/** How often firmware files no row names are swept while the server runs (and how old they must be). */
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/** How often kept counts no view reads any more are pruned (PostgreSQL's empty hours of check-ins). */
const PRUNE_COUNTS_EVERY_MS = 60 * 60 * 1000;
import { ConfigError, loadConfig } from "./config.ts";
import { type AppContext, pathsFor } from "./context.ts";
import { DatabaseUrlError, NewerSchemaError, openStores, storesConfig, StoreUnavailableError } from "./db/mod.ts";
import { seedDemo } from "./demo/seed.ts";
import { handleShutdownSignals } from "./shutdown.ts";
import { watchLaunchers } from "../shared/launcher.ts";
import { createLogger } from "./lib/logger.ts";
import { ensureWebBundle } from "./web_bundle.ts";
import { requireXz, XzMissingError } from "./files/xz_check.ts";
import { openFirmwareFiles } from "./files/mod.ts";
import { isNoSpace } from "./storage_state.ts";
import { startAuditCheckpoints } from "./audit_checkpoints.ts";
import { serveFront } from "./lib/connection_front.ts";
import { connectionsDropped } from "./metrics.ts";

function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}

/** One line naming HOST and PORT for an error of listening there. */
function cannotListen(err: unknown, host: string, port: number): string {
  if (err instanceof Deno.errors.AddrInUse) {
    return `Cannot listen on ${host}:${port}: the port is in use; stop what uses it or set PORT to a free port.`;
  }
  return `Cannot listen on ${host}:${port}: ${err instanceof Error ? err.message : err}; check HOST and PORT.`;
}

// Before anything is created or printed (DATA_DIR, the first operator and its one-time password): a start that
// cannot listen must leave nothing behind. Deno.serve below still reports a port taken in the meantime.
try {
  Deno.listen({ hostname: config.HOST, port: config.PORT }).close();
} catch (err) {
  fail(cannotListen(err, config.HOST, config.PORT));
}

// Every firmware upload is tested by the xz tool: without it the server would answer each upload with an error.
try {
  await requireXz();
} catch (err) {
  if (err instanceof XzMissingError) fail(err.message);
  throw err;
}

// A full disk at start (the database, its migrations, the secret, the first operator) ends with one line.
try {
  const logger = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
  const log = logger.log;
  const paths = pathsFor(config.DATA_DIR);
  try {
    for (const warning of await ensureDirectories(paths)) log(warning);
    for (const dir of [paths.data, paths.firmwares, paths.tmp]) await assertWritable(dir);
  } catch (err) {
    if (isNoSpace(err)) throw err; // the full-disk line below
    fail(`Invalid configuration: DATA_DIR ${paths.data} cannot be used (${err instanceof Error ? err.message : err}).`);
  }

  let stores;
  try {
    stores = await openStores(storesConfig(paths, config));
  } catch (err) {
    if (err instanceof NewerSchemaError) fail(err.message);
    if (err instanceof DatabaseUrlError) fail(`Invalid configuration: DATABASE_URL: ${err.message}`);
    if (err instanceof StoreUnavailableError) fail(`Cannot reach the database of DATABASE_URL: ${err.cause ?? err}.`);
    throw err;
  }
  const files = await openFirmwareFiles(config, paths);
  await cleanUpAfterCrash(stores, files, paths, log);
  // The audit chain's head outside the database (docs/REQUIREMENTS.md §17): at start, when it moved, and at shutdown.
  const checkpoints = startAuditCheckpoints({
    head: () => stores.audit.head(),
    everyMs: config.AUDIT_CHECKPOINT_SECONDS * 1000,
    publish: (cp) => logger.event("audit.checkpoint", { count: cp.count, hash: cp.hash, at: cp.at }),
    // Loaded only with a bucket: the S3 SDK is megabytes of a server's memory that runs without one.
    objects: config.firmwareStore.kind === "s3"
      ? (await import("./files/checkpoint_objects.ts")).checkpointObjects(config.firmwareStore)
      : null,
    log,
  });
  const shutdown = handleShutdownSignals({
    stores,
    files,
    paths,
    graceMs: config.SHUTDOWN_GRACE_SECONDS * 1000,
    log,
    beforeClose: () => checkpoints.stop(),
  });
  // Behind `npx … task start`, a SIGTERM to npx reaches neither `deno task` nor the server: they stop when it is gone.
  watchLaunchers((launcher) => shutdown.stop(`The ${launcher} that started the server is gone`));
  // Objects a crashed upload left in a shared bucket are swept while the server runs (at start, only those already old).
  setInterval(() => sweepFirmwareFiles(stores, files, log, SWEEP_EVERY_MS).catch(() => {}), SWEEP_EVERY_MS);
  // Once at start, then every hour in every process (each run is one indexed DELETE; replicas racing delete nothing
  // twice).
  await pruneKeptCounts(stores, log, true);
  setInterval(() => pruneKeptCounts(stores, log, false).catch(() => {}), PRUNE_COUNTS_EVERY_MS);
  // Once however many replicas start together on one database (a lock on PostgreSQL).
  const ctx: AppContext = await stores.system.exclusive(async () => {
    await stores.deviceTypes.ensure(config.PRODUCT);
    await bootstrapOperator(stores.operators, config, log);
    const ctx: AppContext = {
      config,
      stores,
      files,
      secret: await loadSecret(paths.data, config.JWT_SECRET, stores.system),
      paths,
      log,
      logRequest: logger.request,
    };
    if (config.demo) await seedDemo(ctx);
    return ctx;
  });
  await ensureWebBundle(log);
  await checkpoints.tick();

  const app = createApp(ctx);
  let server;
  try {
    // Deno.serve behind a front that drops slow clients (headers within HEADER_TIMEOUT_SECONDS, a cap on half-open
    // connections): the single container has no proxy to do it (docs/REQUIREMENTS.md §19).
    const listen = {
      port: config.PORT,
      hostname: config.HOST,
      onListen: ({ hostname, port }: Deno.NetAddr) => console.log(`Listening on http://${hostname}:${port}/`),
    };
    server = config.CONNECTION_GUARD !== "0"
      ? serveFront(
        {
          ...listen,
          headerTimeoutMs: config.HEADER_TIMEOUT_SECONDS * 1000,
          idleTimeoutMs: config.IDLE_CONNECTION_SECONDS * 1000,
          maxHalfOpen: config.MAX_HALF_OPEN_CONNECTIONS,
          onDrop: (reason) => connectionsDropped.labels({ reason }).inc(),
        },
        shutdown.wrap(app.fetch),
        config.CONNECTION_GUARD === "relay" ? "relay" : "direct",
        log,
      )
      : Deno.serve(listen, shutdown.wrap(app.fetch));
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) fail(cannotListen(err, config.HOST, config.PORT));
    throw err;
  }

  shutdown.serving(server);
} catch (err) {
  if (isNoSpace(err)) {
    fail(
      `Cannot start: the disk of DATA_DIR ${config.DATA_DIR} is full (${err instanceof Error ? err.message : err}); ` +
        "free space there and start again.",
    );
  }
  // SQLite cannot write its file or the -wal/-shm beside it (DATA_DIR itself passed assertWritable).
  if (!config.DATABASE_URL && /readonly database|unable to open database file/i.test(String(err))) {
    fail(
      `Cannot start: the database in DATA_DIR ${config.DATA_DIR} cannot be written (${
        err instanceof Error ? err.message : err
      }); the server's user must be able to write console.sqlite3 and its -wal and -shm files there.`,
    );
  }
  throw err;
}
