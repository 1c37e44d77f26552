import { createApp } from "./app.ts";
import { LoginThrottle } from "./auth/throttle.ts";
import { loadSecret } from "./auth/secret.ts";
import { bootstrapOperator, clearTmp, ensureDirectories } from "./bootstrap.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { type AppContext, pathsFor } from "./context.ts";
import { ensureDeviceType } from "./db/device_types.ts";
import { openDatabase } from "./db/mod.ts";
import { seedDemo } from "./demo/seed.ts";
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

const log = config.LOG_LEVEL === "quiet" ? () => {} : (line: string) => console.log(`${new Date().toISOString()} ${line}`);
const paths = pathsFor(config.DATA_DIR);
await ensureDirectories(paths);
const leftovers = await clearTmp(paths);
if (leftovers) log(`Removed ${leftovers} temp file(s) left by an interrupted upload or import.`);

const db = openDatabase(paths.db);
ensureDeviceType(db, config.PRODUCT);
await bootstrapOperator(db, config, log);

const ctx: AppContext = {
  config,
  db,
  secret: await loadSecret(paths.data, config.JWT_SECRET),
  throttle: new LoginThrottle(),
  paths,
  log,
};
if (config.demo) await seedDemo(ctx);
await ensureWebBundle(log);

const app = createApp(ctx);
const server = Deno.serve({
  port: config.PORT,
  hostname: config.HOST,
  onListen: ({ hostname, port }) => console.log(`Listening on http://${hostname}:${port}/`),
}, app.fetch);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: finishing requests in flight, then stopping.`);
  await server.shutdown();
  db.close();
  Deno.exit(0);
}
Deno.addSignalListener("SIGTERM", () => shutdown("SIGTERM"));
Deno.addSignalListener("SIGINT", () => shutdown("SIGINT"));
