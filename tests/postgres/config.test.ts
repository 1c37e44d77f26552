/**
 * The engine switch from the outside: DATABASE_URL and DATABASE_POOL_SIZE are parsed once (one line naming a bad
 * value), a server pointed at an unreachable database exits 1 saying so, a newer schema is refused untouched, and
 * `deno task backup`/`restore` name PostgreSQL's own tools and exit 2 (docs/REQUIREMENTS.md §10).
 */
import assert from "node:assert/strict";
import { parseConfig } from "../../server/config.ts";
import { storesConfig } from "../../server/db/mod.ts";
import { pgQuery, testDatabaseUrl } from "../../testing/postgres.ts";
import { startServer } from "../../testing/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function run(script: string, args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, ...args],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr).trim() };
}

Deno.test("config: DATABASE_URL selects PostgreSQL with its pool size; unset stays SQLite", () => {
  const paths = { db: "/data/console.sqlite3" };
  assert.deepEqual(storesConfig(paths, parseConfig({})), { engine: "sqlite", file: paths.db });
  const url = "postgres://console:pw@db:5432/console";
  assert.deepEqual(storesConfig(paths, parseConfig({ DATABASE_URL: url })), {
    engine: "postgres",
    url,
    poolSize: 10,
  });
  assert.equal(parseConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: "3" }).DATABASE_POOL_SIZE, 3);
  assert.throws(() => parseConfig({ DATABASE_URL: "mysql://db/x" }), /^Error: Invalid configuration: DATABASE_URL /);
  assert.throws(() => parseConfig({ DATABASE_POOL_SIZE: "0" }), /DATABASE_POOL_SIZE must be at least 1/);
});

Deno.test("config: a server whose database cannot be reached exits 1 with one line", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "pg-down-" });
  try {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    const { code, stderr } = await run("server/main.ts", [], {
      DATA_DIR: dataDir,
      PORT: "0",
      DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/nothing`,
    });
    assert.equal(code, 1);
    assert.equal(stderr.split("\n").length, 1, stderr);
    assert.match(stderr, /^Cannot reach the database of DATABASE_URL/);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("config: a server refuses a database of a newer release and leaves it untouched", async () => {
  const url = await testDatabaseUrl();
  {
    await using srv = await startServer({ env: { DATABASE_URL: url } });
    await srv.login();
  }
  await pgQuery(url, "UPDATE schema_version SET version = version + 1");
  const count = async () => JSON.stringify(await pgQuery(url, "SELECT count(*) AS n FROM operators"));
  const before = await count();
  const dataDir = await Deno.makeTempDir({ prefix: "pg-newer-" });
  const { code, stderr } = await run("server/main.ts", [], { DATA_DIR: dataDir, PORT: "0", DATABASE_URL: url });
  await Deno.remove(dataDir, { recursive: true });
  assert.equal(code, 1);
  assert.match(stderr, /newer than this release knows/);
  assert.equal(await count(), before);
});

Deno.test("backup and restore with DATABASE_URL name pg_dump / pg_restore and exit 2", async () => {
  const env = { DATABASE_URL: "postgres://console@db/console", DATA_DIR: "/nonexistent" };
  const backup = await run("scripts/backup.ts", ["/tmp/never-written"], env);
  assert.equal(backup.code, 2);
  assert.match(backup.stderr, /pg_dump/);
  const restore = await run("scripts/restore.ts", ["/tmp/never-read"], env);
  assert.equal(restore.code, 2);
  assert.match(restore.stderr, /pg_restore/);
});
