/**
 * A throwaway PostgreSQL 15 cluster for tests and the bench: initdb in a temp directory owned by the `postgres` user
 * (PostgreSQL refuses to run as root), its own free port on 127.0.0.1 only, trust authentication; stopped and removed
 * on dispose.
 *   await using pg = await startPostgres();
 *   const url = await pg.createDatabase();   // a fresh, empty database: postgres://postgres@127.0.0.1:PORT/db_N
 *
 * Missing binaries fail with a message naming the Debian package, never a silent skip.
 */
import { existsSync } from "node:fs";
import postgres from "postgres";

const BIN_DIRS = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/14/bin"];

export class PostgresMissingError extends Error {
  override name = "PostgresMissingError";
}

/**
 * The directory holding initdb and pg_ctl (POSTGRES_BIN_DIR, else Debian's for 15, 16 or 14); PostgresMissingError
 * naming the package when there is none.
 */
export function postgresBinDir(dirs: readonly string[] = binDirs()): string {
  const dir = dirs.find((d) => existsSync(`${d}/initdb`) && existsSync(`${d}/pg_ctl`));
  if (!dir) {
    throw new PostgresMissingError(
      `PostgreSQL is not installed (no initdb in ${
        dirs.join(", ")
      }): install the Debian package \`postgresql\` (apt-get install -y postgresql), which the PostgreSQL tests need.`,
    );
  }
  return dir;
}

const binDirs = () => {
  const fromEnv = Deno.env.get("POSTGRES_BIN_DIR");
  return fromEnv ? [fromEnv] : BIN_DIRS;
};

export interface TestPostgres extends AsyncDisposable {
  port: number;
  /** The cluster's data directory (postmaster.pid in it). */
  dataDir: string;
  /** The URL of the `postgres` database (for administration). */
  adminUrl: string;
  /** Creates an empty database and answers its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown: connections are closed); the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /**
   * SIGSTOP to the postmaster and every process under it: a hung VM or a partition (connections stay open, nothing
   * answers). thaw() sends SIGCONT; dispose thaws first.
   */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Stops and removes the cluster synchronously (at process exit). */
  disposeSync(): void;
  /** With `tls`: the files of its certificates (PEM) and the role that must sign in by a client certificate. */
  tls?: TestTls;
}

export interface TestTls {
  /** The CA that signed the server's certificate (CN and IP SAN 127.0.0.1) and the client's. */
  caFile: string;
  /** A client certificate and its key for `certUser`, whom pg_hba admits over TLS by that certificate alone. */
  clientCertFile: string;
  clientKeyFile: string;
  certUser: string;
  /** Another CA, which signed nothing here: a server's certificate checked against it is refused. */
  otherCaFile: string;
}

const CERT_USER = "cert_user";

/**
 * A CA, the server's certificate by it (CN and subjectAltName IP 127.0.0.1, so verify-full holds for that address), a
 * client certificate for CERT_USER, another unrelated CA; and pg_hba admitting CERT_USER over TLS by its certificate.
 */
async function makeCertificates(data: string): Promise<void> {
  const ssl = (...args: string[]) => run("openssl", args);
  const key = (
    file: string,
  ) => ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", file];
  for (const ca of ["ca", "other-ca"]) {
    await ssl(
      "req",
      "-x509",
      ...key(`${data}/${ca}.key`),
      "-days",
      "2",
      "-subj",
      `/CN=console test ${ca}`,
      "-out",
      `${data}/${ca}.crt`,
    );
  }
  await Deno.writeTextFile(`${data}/server.ext`, "subjectAltName=IP:127.0.0.1\n");
  if (asRoot) await run("chown", ["postgres:postgres", `${data}/server.ext`], false);
  for (
    const [name, cn, ext] of [["server", "127.0.0.1", ["-extfile", `${data}/server.ext`]], [
      "client",
      CERT_USER,
      [],
    ]] as const
  ) {
    await ssl("req", ...key(`${data}/${name}.key`), "-subj", `/CN=${cn}`, "-out", `${data}/${name}.csr`);
    await ssl(
      "x509",
      "-req",
      "-in",
      `${data}/${name}.csr`,
      "-CA",
      `${data}/ca.crt`,
      "-CAkey",
      `${data}/ca.key`,
      "-CAcreateserial",
      "-days",
      "2",
      ...ext,
      "-out",
      `${data}/${name}.crt`,
    );
  }
  await Deno.chmod(`${data}/server.key`, 0o600);
  const hba = `${data}/pg_hba.conf`;
  await Deno.writeTextFile(hba, `hostssl all ${CERT_USER} 127.0.0.1/32 cert\n` + await Deno.readTextFile(hba));
}

const asRoot = Deno.uid() === 0;

async function run(cmd: string, args: string[], user = true): Promise<string> {
  const [exe, argv] = asRoot && user ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  const out = await new Deno.Command(exe, { args: argv, stdout: "piped", stderr: "piped", stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed (${out.code}):\n${text}`);
  return text;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

let databases = 0;

export interface PostgresStartOptions {
  /**
   * TLS on (`ssl=on`, a self-signed certificate made by openssl), and the URLs ask for it (`?sslmode=require`): a
   * managed service's usual setting.
   */
  tls?: boolean;
}

export async function startPostgres(start_: PostgresStartOptions = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const dir = await Deno.makeTempDir({ prefix: "console-pg-" });
  if (asRoot) await run("chown", ["postgres:postgres", dir], false);
  await Deno.chmod(dir, 0o700);
  const data = `${dir}/data`;
  await run(`${bin}/initdb`, ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8"]);
  if (start_.tls) await makeCertificates(data);
  const query = start_.tls ? "?sslmode=require" : "";
  const port = freePort();
  const options = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    `-c fsync=off`,
    `-c synchronous_commit=off`,
    `-c full_page_writes=off`,
    `-c max_connections=200`,
    `-c shared_buffers=128MB`,
    ...(start_.tls ? ["-c ssl=on", "-c ssl_ca_file=ca.crt"] : []),
  ].join(" ");
  const start = () => run(`${bin}/pg_ctl`, ["-D", data, "-l", `${dir}/log`, "-o", options, "-w", "-t", "60", "start"]);
  const stop = () => run(`${bin}/pg_ctl`, ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres${query}`;
  const psql = (sql: string) =>
    run(`${bin}/psql`, ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-qc", sql]);
  if (start_.tls) await psql(`CREATE ROLE ${CERT_USER} LOGIN SUPERUSER`);
  let running = true;
  let frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen.toReversed()) {
      try {
        Deno.kill(pid, "SIGCONT");
      } catch { /* gone */ }
    }
    frozen = [];
  };
  return {
    port,
    dataDir: data,
    adminUrl,
    ...(start_.tls
      ? {
        tls: {
          caFile: `${data}/ca.crt`,
          clientCertFile: `${data}/client.crt`,
          clientKeyFile: `${data}/client.key`,
          certUser: CERT_USER,
          otherCaFile: `${data}/other-ca.crt`,
        },
      }
      : {}),
    async createDatabase() {
      const name = `db_${Deno.pid}_${++databases}`;
      await psql(`CREATE DATABASE ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}${query}`;
    },
    async stop() {
      await stop();
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async freeze() {
      const postmaster = Number((await Deno.readTextFile(`${data}/postmaster.pid`)).split("\n")[0]);
      Deno.kill(postmaster, "SIGSTOP");
      frozen = [postmaster, ...childrenOf(postmaster)];
      for (const pid of frozen.slice(1)) Deno.kill(pid, "SIGSTOP");
    },
    thaw() {
      thaw();
      return Promise.resolve();
    },
    disposeSync() {
      thaw();
      if (running) {
        const [exe, argv] = asRoot
          ? ["runuser", ["-u", "postgres", "--", `${bin}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"]]
          : [`${bin}/pg_ctl`, ["-D", data, "-m", "immediate", "-w", "stop"]];
        new Deno.Command(exe as string, { args: argv as string[], stdout: "null", stderr: "null" }).outputSync();
        running = false;
      }
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch { /* gone */ }
    },
    async [Symbol.asyncDispose]() {
      thaw();
      if (running) await stop().catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(e.name));
    } catch { /* gone */ }
  }
  return out;
}

/**
 * One cluster shared by the tests of a process (started on first use, stopped and removed when the process exits):
 * starting a cluster costs ~1 s, a database ~50 ms.
 */
let shared: Promise<TestPostgres> | undefined;
export function sharedPostgres(): Promise<TestPostgres> {
  if (!shared) {
    shared = startPostgres();
    shared.then((pg) => globalThis.addEventListener("unload", () => pg.disposeSync())).catch(() => {});
  }
  return shared;
}

/**
 * A new empty database for a test: in the cluster `deno task test` started for the whole run (its admin URL in
 * TEST_POSTGRES_URL), else in one this process starts on first use.
 */
export async function testDatabaseUrl(): Promise<string> {
  const admin = Deno.env.get("TEST_POSTGRES_URL");
  if (!admin) return await (await sharedPostgres()).createDatabase();
  const name = `db_${Deno.pid}_${++databases}_${crypto.randomUUID().slice(0, 8)}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.href;
}

/** True when the tests run the server on PostgreSQL (`TEST_ENGINE=postgres`). */
export const testOnPostgres = () => Deno.env.get("TEST_ENGINE") === "postgres";

/** Runs one statement on a database directly (tests that inspect or tamper with what the server wrote). */
export async function pgQuery(url: string, text: string): Promise<Record<string, unknown>[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return [...await sql.unsafe(text)];
  } finally {
    await sql.end();
  }
}
