/**
 * PostgreSQL over TLS (`?sslmode=require`, a managed service's usual setting): a connection the console ends (or whose
 * socket closes) in the turn a statement was written connects again at once, as in plain TCP (docs/DECISIONS.md,
 * "Frozen PostgreSQL over TLS"); and two replicas of the server recover from a frozen database as fast as in plain TCP.
 */
import assert from "node:assert/strict";
import { startPostgres } from "../../testing/postgres.ts";
import { connect, isUnavailable } from "../../server/db/postgres/open.ts";
import { answerAfterEndedMidWrite, faultReplicas, recovery, traffic } from "../../testing/fault_traffic.ts";
import { startBucket } from "../../testing/s3.ts";
import { startServer } from "../../testing/server.ts";

/** The fault tests' bound (fault_replicas.test.ts): the contract's 2 s plus a margin for the loaded machine. */
const LIMIT_MS = 2_500;

Deno.test("tls: a connection ended in the turn a statement was written connects again at once", async () => {
  // npm postgres 3.4.9 keeps the write timer it cleared when a connection is ended before its buffered write went out;
  // its next SSLRequest (8 bytes) was then never sent and the next call waited for connect_timeout (3 s here).
  await using pg = await startPostgres({ tls: true });
  const url = await pg.createDatabase();
  assert.match(url, /sslmode=require/);
  const sql = connect({ url, poolSize: 1, connectTimeoutSeconds: 3 });
  try {
    const [{ ssl }] = await sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
    assert.equal(ssl, true);
    const { value: n, ms } = await answerAfterEndedMidWrite(
      sql,
      () => sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`.then(([row]) => row.ssl),
    );
    console.log(`the next call on the ended connection (TLS): answered in ${ms.toFixed(0)} ms`);
    assert.equal(n, true);
    assert.ok(ms < 2_500, `the next call took ${ms.toFixed(0)} ms (connect_timeout: an SSLRequest never sent)`);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

Deno.test("tls: PostgreSQL frozen and back under traffic on two replicas: every answer in time, both back in time", async (t) => {
  await using pg = await startPostgres({ tls: true });
  const url = await pg.createDatabase();
  await using bucket = await startBucket();
  await using replicas = await faultReplicas(url, bucket);
  const { servers, api, fw } = replicas;
  // Twice 3 s: a thaw ~3 s into a freeze lands as the watchdog ends the pools a second time (fault_replicas.test.ts).
  for (const phase of ["frozen", "frozen again"]) {
    await t.step(`${phase}: every answer a success or 503 within ${LIMIT_MS} ms; both replicas back`, async () => {
      const load = traffic(servers, api.token, fw._id, 7);
      await new Promise((r) => setTimeout(r, 300));
      await pg.freeze();
      await new Promise((r) => setTimeout(r, 3_000));
      await pg.thaw();
      const back = await recovery(servers, performance.now());
      const answers = await load.stop();
      const failed = answers.filter((a) => a.status === 503);
      console.log(
        `${phase} (TLS): ${answers.length} answers, ${failed.length} × 503 (slowest ${
          Math.max(0, ...failed.map((a) => a.ms)).toFixed(0)
        } ms); replicas back ${back.map((b) => b.toFixed(0)).join(" / ")} ms after the thaw`,
      );
      const bad = answers.filter((a) =>
        !(typeof a.status === "number" && (a.status < 300 || (a.status === 503 && a.error === "unavailable")))
      );
      assert.deepEqual(bad, []);
      assert.ok(failed.length > 0, `${phase}: the fault was not seen`);
      assert.deepEqual(failed.filter((a) => a.ms > LIMIT_MS), [], `${phase}: 503s slower than ${LIMIT_MS} ms`);
      assert.ok(Math.max(...back) <= LIMIT_MS, `${phase}: back after ${Math.max(...back).toFixed(0)} ms`);
    });
  }
  for (const srv of servers) assert.doesNotMatch(srv.output(), / 500 |Uncaught|"internal"/);
});

Deno.test("tls: sslmode=require on a server without TLS fails as unavailable at once; prefer falls back to plain TCP", async () => {
  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  const required = connect({ url: `${url}?sslmode=require`, poolSize: 1, connectTimeoutSeconds: 3 });
  try {
    const started = performance.now();
    const err = await required`SELECT 1`.then(() => null, (e) => e);
    const ms = performance.now() - started;
    console.log(`sslmode=require, no TLS on the server: ${err?.code} after ${ms.toFixed(0)} ms`);
    assert.ok(isUnavailable(err), String(err));
    assert.ok(ms < 2_500, `failed after ${ms.toFixed(0)} ms`);
  } finally {
    await required.end({ timeout: 1 });
  }
  const preferred = connect({ url: `${url}?sslmode=prefer`, poolSize: 1 });
  try {
    const [{ ssl }] = await preferred`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
    assert.equal(ssl, false);
  } finally {
    await preferred.end({ timeout: 1 });
  }
});

/** `url` with its query parameters replaced by `params` (and its user, when given). */
function withParams(url: string, params: Record<string, string>, user?: string): string {
  const u = new URL(url);
  u.search = new URLSearchParams(params).toString();
  if (user) u.username = user;
  return u.href;
}

/** The error of one statement on a pool of `url` (null when it answered), and how long it took. */
async function firstCall(url: string) {
  const sql = connect({ url, poolSize: 1, connectTimeoutSeconds: 3 });
  const started = performance.now();
  try {
    const rows =
      await sql`SELECT current_user AS who, (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS ssl`;
    return { rows: [...rows], err: null, ms: performance.now() - started };
  } catch (err) {
    return { rows: [], err: err as Error, ms: performance.now() - started };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

Deno.test("tls: sslrootcert, sslcert and sslkey as libpq reads them: the certificate checked, a client certificate signs in", async (t) => {
  await using pg = await startPostgres({ tls: true });
  const url = await pg.createDatabase();
  const files = pg.tls!;
  await t.step(
    "verify-full and verify-ca against the CA that signed the server's certificate: connected over TLS",
    async () => {
      for (const sslmode of ["verify-full", "verify-ca", "require"]) {
        const { rows, err } = await firstCall(withParams(url, { sslmode, sslrootcert: files.caFile }));
        assert.equal(err, null, `${sslmode}: ${err}`);
        assert.deepEqual(rows, [{ who: "postgres", ssl: true }]);
      }
    },
  );
  await t.step(
    "a certificate the CAs do not vouch for is refused at once (require with sslrootcert checks as verify-ca)",
    async () => {
      const cases: Record<string, string>[] = [
        { sslmode: "verify-full" }, // the CAs Deno trusts: not this test CA
        { sslmode: "verify-full", sslrootcert: files.otherCaFile },
        { sslmode: "verify-ca", sslrootcert: files.otherCaFile },
        { sslmode: "require", sslrootcert: files.otherCaFile },
      ];
      for (const params of cases) {
        const { err, ms } = await firstCall(withParams(url, params));
        console.log(`${JSON.stringify(params)}: ${err?.message} after ${ms.toFixed(0)} ms`);
        assert.ok(err && isUnavailable(err), `${JSON.stringify(params)}: ${err}`);
        assert.match(err.message, /certificate/i);
        assert.ok(ms < 2_500, `${JSON.stringify(params)}: refused after ${ms.toFixed(0)} ms`);
      }
    },
  );
  await t.step(
    "verify-full refuses a certificate that does not name the host (verify-ca takes it): the name is checked",
    async () => {
      // The certificate names IP 127.0.0.1 only; "localhost" reaches the same server under a name it does not hold.
      const byName = (params: Record<string, string>) => {
        const u = new URL(withParams(url, params));
        u.hostname = "localhost";
        return u.href;
      };
      const ca = await firstCall(byName({ sslmode: "verify-ca", sslrootcert: files.caFile }));
      assert.equal(ca.err, null, `verify-ca by name: ${ca.err}`);
      assert.deepEqual(ca.rows, [{ who: "postgres", ssl: true }]);
      const full = await firstCall(byName({ sslmode: "verify-full", sslrootcert: files.caFile }));
      console.log(`verify-full by a name the certificate lacks: ${full.err?.message} after ${full.ms.toFixed(0)} ms`);
      assert.ok(full.err && isUnavailable(full.err), String(full.err));
      assert.match(full.err.message, /localhost|altnames|host/i);
    },
  );
  await t.step("a role that signs in by certificate: admitted with sslcert and sslkey, refused without", async () => {
    const base = { sslmode: "verify-full", sslrootcert: files.caFile };
    const signed = await firstCall(
      withParams(url, { ...base, sslcert: files.clientCertFile, sslkey: files.clientKeyFile }, files.certUser),
    );
    assert.equal(signed.err, null, String(signed.err));
    assert.deepEqual(signed.rows, [{ who: files.certUser, ssl: true }]);
    const unsigned = await firstCall(withParams(url, base, files.certUser));
    assert.match(String(unsigned.err), /certificate/i);
  });
  await t.step("a server on such a URL serves (the parameters are not sent to PostgreSQL as settings)", async () => {
    await using srv = await startServer({
      env: {
        DATABASE_URL: withParams(
          url,
          {
            sslmode: "verify-full",
            sslrootcert: files.caFile,
            sslcert: files.clientCertFile,
            sslkey: files.clientKeyFile,
          },
          files.certUser,
        ),
      },
    });
    const res = await fetch(`${srv.url}/healthz`);
    assert.equal(res.status, 200, await res.text());
  });
});

Deno.test("tls: a DATABASE_URL asking for TLS the console cannot give is refused at start, naming what", async () => {
  const url = "postgres://console@127.0.0.1:5432/console";
  const cases: [Record<string, string>, RegExp][] = [
    [
      { sslmode: "verify-full", sslrootcert: "/nonexistent/ca.crt" },
      /sslrootcert=\/nonexistent\/ca\.crt cannot be read/,
    ],
    [{ sslmode: "verify-full", sslcrl: "/x.crl" }, /sslcrl is not supported/],
    [{ sslmode: "require", sslrootcert: "system" }, /sslrootcert=system needs sslmode=verify-full/],
    [{ sslrootcert: "/ca.crt" }, /without sslmode/],
    [{ sslmode: "verify-full", sslcert: "/c.crt" }, /sslcert and sslkey go together/],
  ];
  for (const [params, message] of cases) {
    assert.throws(() => connect({ url: withParams(url, params), poolSize: 1 }), (err: Error) => {
      assert.equal(err.name, "DatabaseUrlError");
      assert.match(err.message, message);
      return true;
    });
  }
  const dataDir = await Deno.makeTempDir({ prefix: "pg-tls-config-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "server/main.ts"],
      cwd: new URL("../../", import.meta.url).pathname,
      env: { DATA_DIR: dataDir, PORT: "0", DATABASE_URL: withParams(url, cases[0][0]) },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr).trim();
    assert.equal(out.code, 1);
    assert.match(stderr, /^Invalid configuration: DATABASE_URL: sslrootcert=\/nonexistent\/ca\.crt cannot be read/);
    assert.equal(stderr.split("\n").length, 1, stderr);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
