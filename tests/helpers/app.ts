/**
 * The real app in-process (no port), built the way server/main.ts builds it, against a temp DATA_DIR:
 *   await using built = await buildApp();
 *   const res = await built.app.request("/api/v1/devices", { headers: { authorization: `Bearer ${await built.token()}` } });
 */
import { createApp } from "../../server/app.ts";
import { loadSecret } from "../../server/auth/secret.ts";
import { LoginThrottle } from "../../server/auth/throttle.ts";
import { issueToken } from "../../server/auth/tokens.ts";
import { bootstrapOperator, ensureDirectories } from "../../server/bootstrap.ts";
import { parseConfig } from "../../server/config.ts";
import { type AppContext, pathsFor } from "../../server/context.ts";
import { ensureDeviceType } from "../../server/db/device_types.ts";
import { openDatabase } from "../../server/db/mod.ts";
import { findOperator } from "../../server/db/operators.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEVICE_API_KEY } from "../../testing/server.ts";

export interface BuiltApp extends AsyncDisposable {
  app: ReturnType<typeof createApp>;
  ctx: AppContext;
  /** A valid operator token for the admin. */
  token(): Promise<string>;
}

export async function buildApp(env: Record<string, string> = {}): Promise<BuiltApp> {
  const dataDir = await Deno.makeTempDir({ prefix: "console-app-" });
  const config = parseConfig({
    DATA_DIR: dataDir,
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    DEVICE_API_KEY,
    LOG_LEVEL: "quiet",
    ...env,
  });
  const paths = pathsFor(config.DATA_DIR);
  await ensureDirectories(paths);
  const db = openDatabase(paths.db);
  const log = () => {};
  ensureDeviceType(db, config.PRODUCT);
  await bootstrapOperator(db, config, log);
  const ctx: AppContext = {
    config,
    db,
    secret: await loadSecret(paths.data, config.JWT_SECRET),
    throttle: new LoginThrottle(),
    paths,
    log,
    logRequest: log,
  };
  return {
    app: createApp(ctx),
    ctx,
    token: () => issueToken(ctx.secret, ADMIN_EMAIL, findOperator(db, ADMIN_EMAIL)!.password_version, 3600),
    async [Symbol.asyncDispose]() {
      db.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
