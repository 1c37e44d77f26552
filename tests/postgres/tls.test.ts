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
