import { createApp } from "./app.ts";
import { LoginThrottle } from "./auth/throttle.ts";
import { loadSecret } from "./auth/secret.ts";
import { bootstrapOperator, cleanUpAfterCrash, ensureDirectories } from "./bootstrap.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { type AppContext, pathsFor } from "./context.ts";
import { NewerSchemaError, openStores, storesConfig } from "./db/mod.ts";
import { seedDemo } from "./demo/seed.ts";
import { handleShutdownSignals } from "./shutdown.ts";
import { createLogger } from "./lib/logger.ts";
import { ensureWebBundle } from "./web_bundle.ts";

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

const logger = createLogger(config.LOG_LEVEL);
const log = logger.log;
const paths = pathsFor(config.DATA_DIR);
try {
  await ensureDirectories(paths);
} catch (err) {
  fail(`Invalid configuration: DATA_DIR ${paths.data} cannot be used (${err instanceof Error ? err.message : err}).`);
}

let stores;
try {
  stores = await openStores(storesConfig(paths));
} catch (err) {
  if (err instanceof NewerSchemaError) fail(err.message);
  throw err;
}
await cleanUpAfterCrash(stores.firmwares, paths, log);
const shutdown = handleShutdownSignals({ stores, paths, graceMs: config.SHUTDOWN_GRACE_SECONDS * 1000, log });
await stores.deviceTypes.ensure(config.PRODUCT);
await bootstrapOperator(stores.operators, config, log);

const ctx: AppContext = {
  config,
  stores,
  secret: await loadSecret(paths.data, config.JWT_SECRET),
  throttle: new LoginThrottle(),
  paths,
  log,
  logRequest: logger.request,
};
if (config.demo) await seedDemo(ctx);
await ensureWebBundle(log);

const app = createApp(ctx);
const server = Deno.serve({
  port: config.PORT,
  hostname: config.HOST,
  onListen: ({ hostname, port }) => console.log(`Listening on http://${hostname}:${port}/`),
}, shutdown.wrap(app.fetch));

shutdown.serving(server);
