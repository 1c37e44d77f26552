/**
 * Starts the real server as a child process on a free port with a temp DATA_DIR, for tests.
 *   await using srv = await startServer();
 *   const api = await srv.login();        // an ApiClient signed in as the admin
 */
import { checkedFetch } from "./answer_check.ts";
import { firmwareStoreUnderTest, startBucket, type TestBucket } from "./s3.ts";
import { ApiClient } from "../shared/client.ts";
import { fixedLengthFetch } from "../shared/fixed_length_fetch.ts";
import { testDatabaseUrl, testOnPostgres } from "./postgres.ts";
import { SERVER_V8_FLAGS } from "../server/v8_flags.ts";

export const ADMIN_EMAIL = "admin@example.com";
export const ADMIN_PASSWORD = "admin-password-1";
export const DEVICE_API_KEY = "test-device-key-0123456789";

const ROOT = new URL("../", import.meta.url).pathname;

export interface TestServer extends AsyncDisposable {
  url: string;
  dataDir: string;
  /** What selects the server's database besides DATA_DIR ({DATABASE_URL} on PostgreSQL): for tools run beside it. */
  engineEnv: Record<string, string>;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** An ApiClient with no token, or with the given one. */
  client(token?: string): ApiClient;
  /** Signs in (admin by default) and returns a client carrying the token. */
  login(email?: string, password?: string): Promise<ApiClient & { token: string }>;
  /** fetch against the server with an optional bearer token. */
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** Sends a signal (to the process started: with `launch`, the launcher) and waits for the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
  /** With `launch`: sends a signal to the whole process group, as Ctrl-C or systemd do. */
  signalGroup(signal: Deno.Signal): void;
  /** The stored firmware files (`<id>.xz`, sorted), on disk or in the bucket. */
  storedFirmwares(): Promise<string[]>;
  /** The bucket holding the firmware files (TEST_FIRMWARE_STORE=s3, or given), else null. */
  bucket: TestBucket | null;
  process: Deno.ChildProcess;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse an existing data directory (restart tests). */
  dataDir?: string;
  /** Keep the data directory on dispose. */
  keepData?: boolean;
  /** The server process's umask, e.g. "000" (default: this process's). */
  umask?: string;
  /** Firmware files in this bucket (default: a bucket of its own when TEST_FIRMWARE_STORE=s3, else the disk). */
  bucket?: TestBucket;
  /**
   * Start the server through this command line, run in the repository (e.g. `[Deno.execPath(), "task", "start"]`),
   * instead of `deno run … server/main.ts`; it leads a process group of its own (signalGroup).
   */
  launch?: string[];
}

/**
 * The engine tests run the server on: SQLite in DATA_DIR, or with TEST_ENGINE=postgres a new database of the test
 * cluster (testing/postgres.ts) per server, unless `env` names a DATABASE_URL of its own (or "" for SQLite).
 */
async function engineEnv(dataDir: string, env: Record<string, string> = {}): Promise<Record<string, string>> {
  if ("DATABASE_URL" in env || !testOnPostgres()) return {};
  // A restart on the same DATA_DIR finds the same database.
  let url = databases.get(dataDir);
  if (!url) databases.set(dataDir, url = await testDatabaseUrl());
  return { DATABASE_URL: url };
}
const databases = new Map<string, string>();

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: "console-test-" });
  const ownBucket = !opts.bucket && firmwareStoreUnderTest() === "s3" ? await startBucket() : null;
  const bucket = opts.bucket ?? ownBucket;
  const args = ["run", "-A", `--v8-flags=${SERVER_V8_FLAGS}`, `${ROOT}server/main.ts`];
  const engine = await engineEnv(dataDir, opts.env);
  const [command, ...commandArgs] = opts.launch ?? [Deno.execPath(), ...args];
  const child = new Deno.Command(opts.umask ? "/bin/sh" : command, {
    // exec: the shell becomes the server, so its pid and signals are the server's
    args: opts.umask ? ["-c", `umask ${opts.umask} && exec "$0" "$@"`, command, ...commandArgs] : commandArgs,
    detached: !!opts.launch,
    cwd: ROOT,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      DEVICE_API_KEY,
      LOG_LEVEL: "info",
      ...engine,
      ...bucket?.env,
      ...opts.env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  let out = "";
  const decoder = new TextDecoder();
  let resolveUrl: (url: string) => void;
  const urlPromise = new Promise<string>((r) => resolveUrl = r);
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      out += decoder.decode(chunk, { stream: true });
      const m = /Listening on (http:\/\/[^/\s]+)\//.exec(out);
      if (m) resolveUrl(m[1]);
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = child.status;

  const url = await Promise.race([
    urlPromise,
    exited.then((s) => {
      throw new Error(`server exited with ${s.code} before listening:\n${out}`);
    }),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`server did not start in 60 s:\n${out}`)), 60_000)
    ),
  ]);

  let stopped: Promise<number> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    if (!stopped) {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      stopped = exited.then(async (s) => {
        await pumps;
        return s.code;
      });
    }
    return stopped;
  };

  // Every answer the test sees is held to the API's description; the test fails at its end if one broke it.
  const problems: string[] = [];
  const checked = checkedFetch(fetch, problems);
  const client = (token?: string) =>
    new ApiClient({
      baseUrl: url,
      token: () => token,
      fetch: checked,
      uploadFetch: checkedFetch(fixedLengthFetch, problems),
    });
  return {
    url,
    dataDir,
    engineEnv: opts.env?.DATABASE_URL ? { DATABASE_URL: opts.env.DATABASE_URL } : engine,
    process: child,
    output: () => out,
    client,
    async login(email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
      const { token } = await client().login(email, password);
      return Object.assign(client(token), { token });
    },
    fetch(path: string, init: RequestInit & { token?: string } = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
      return checked(`${url}${path}`, { ...init, headers });
    },
    stop,
    signalGroup(signal) {
      if (!opts.launch) throw new Error("signalGroup needs a server started with `launch`");
      Deno.kill(-child.pid, signal);
    },
    bucket,
    async storedFirmwares() {
      if (!bucket) return await listFiles(`${dataDir}/firmwares`);
      return (await bucket.keys("firmwares/")).map((key) => key.slice("firmwares/".length));
    },
    async [Symbol.asyncDispose]() {
      if (opts.launch) {
        try {
          Deno.kill(-child.pid, "SIGKILL"); // the launcher's children too
        } catch { /* the group is gone */ }
      }
      await stop("SIGKILL");
      await ownBucket?.[Symbol.asyncDispose]();
      if (problems.length) {
        throw new Error(`answers that break the API description (shared/routes/):\n${problems.join("\n")}`);
      }
      if (!opts.keepData) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Lists a directory recursively (relative paths, sorted): to assert nothing changed on disk. */
export async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory) names.push(...await listFiles(`${dir}/${e.name}`, rel));
      else names.push(rel);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return names.sort();
}

/** A port nothing listens on right now (on 127.0.0.1). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Waits until the server has written the log lines of every request it answered so far (request lines are batched):
 * sends a request with a marker id and waits for its line, written after theirs. Bounded by `ms`.
 */
export async function requestLinesWritten(srv: TestServer, ms = 10_000): Promise<void> {
  const marker = `lines-written-${crypto.randomUUID()}`;
  await (await srv.fetch("/healthz", { headers: { "X-Request-Id": marker } })).body?.cancel();
  const until = Date.now() + ms;
  while (!srv.output().includes(marker)) {
    if (Date.now() > until) throw new Error(`no log line for request ${marker} in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
