/**
 * The real app (createApp) on real stores, called in-process through app.request(): no child process, no port. SQLite
 * in a temp dir, or with TEST_ENGINE=postgres a new database of the test cluster (testing/postgres.ts), as
 * testing/server.ts does for a server process. `another()` opens a second stores instance on the same database, as
 * another process (or replica) would.
 */
import { diskFirmwareFiles } from "../../server/files/disk_firmware_files.ts";
import { createApp } from "../../server/app.ts";
import { bootstrapOperator, ensureDirectories } from "../../server/bootstrap.ts";
import { parseConfig } from "../../server/config.ts";
import { type AppContext, pathsFor } from "../../server/context.ts";
import { type OpenStores, openStores, storesConfig } from "../../server/db/mod.ts";
import { testDatabaseUrl, testOnPostgres } from "../../testing/postgres.ts";
import { ApiClient, DeviceClient } from "../../shared/client.ts";

export const ADMIN = { email: "admin@example.com", password: "admin-password-1" };
export const DEVICE_KEY = "route-test-device-key-0123";
export const PRODUCT = "routes";

export interface TestApp extends AsyncDisposable {
  app: ReturnType<typeof createApp>;
  stores: OpenStores;
  ctx: AppContext;
  /** Lines the app logged. */
  logged: string[];
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  /** Signs in as the admin; the token. */
  login(): Promise<string>;
  /** The shared client over app.request(), signed in as the admin (as testing/server.ts's `login()`). */
  api(): Promise<ApiClient & { token: string }>;
  /** The device API's client for `deviceId` over app.request(), with the enrolment/shared key. */
  device(deviceId: string): DeviceClient;
  another(): Promise<OpenStores>;
}

export async function testApp(change: (ctx: AppContext) => AppContext = (ctx) => ctx): Promise<TestApp> {
  const dataDir = await Deno.makeTempDir({ prefix: "routes-test-" });
  const databaseUrl = testOnPostgres() ? { DATABASE_URL: await testDatabaseUrl() } : {};
  const config = parseConfig({
    ...databaseUrl,
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    DEVICE_API_KEY: DEVICE_KEY,
    PRODUCT,
    LOG_LEVEL: "quiet",
  });
  const paths = pathsFor(dataDir);
  await ensureDirectories(paths);
  const stores = await openStores(storesConfig(paths, config));
  const logged: string[] = [];
  const log = (line: string) => logged.push(line);
  await stores.deviceTypes.ensure(PRODUCT);
  await bootstrapOperator(stores.operators, config, log);
  const ctx = change({
    config,
    stores,
    files: diskFirmwareFiles(paths),
    secret: "route-tests-secret-0123456789-0123456789",
    paths,
    log,
    logRequest: () => {},
  });
  const app = createApp(ctx);
  const opened: OpenStores[] = [];

  const request: TestApp["request"] = (path, init = {}) => {
    const { token, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set("Authorization", `Bearer ${token}`);
    if (json !== undefined) headers.set("Content-Type", "application/json");
    return Promise.resolve(
      app.request(path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body }),
    );
  };

  const inProcess = {
    baseUrl: "http://in-process",
    fetch: ((input, init) => app.request(input, init)) as typeof fetch,
  };

  return {
    app,
    stores,
    ctx,
    logged,
    request,
    async login() {
      const res = await request("/api/v1/login", { method: "POST", json: ADMIN });
      if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
      return (await res.json()).token;
    },
    async api() {
      const res = await request("/api/v1/login", { method: "POST", json: ADMIN });
      if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
      const { token } = await res.json();
      return Object.assign(new ApiClient({ ...inProcess, token: () => token }), { token });
    },
    device(deviceId) {
      return new DeviceClient(deviceId, { ...inProcess, apiKey: DEVICE_KEY });
    },
    async another() {
      const other = await openStores(storesConfig(paths, config));
      opened.push(other);
      return other;
    },
    async [Symbol.asyncDispose]() {
      for (const other of opened) await other.close();
      await stores.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** The `{error, msg}` body and status of a refusal. */
export async function refusal(res: Response): Promise<{ status: number; error: string; msg: string }> {
  const body = await res.json();
  return { status: res.status, error: body.error, msg: body.msg };
}
