/**
 * PostgreSQL over TLS (`?sslmode=require`, a managed service's usual setting): a connection the console ends (or whose
 * socket closes) in the turn a statement was written connects again at once, as in plain TCP (docs/DECISIONS.md,
 * "Frozen PostgreSQL over TLS"); and the server's stores run over it.
 */
import assert from "node:assert/strict";
import { startPostgres } from "../../testing/postgres.ts";
import { connect } from "../../server/db/postgres/open.ts";

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
    const ended = await sql.unsafe("SELECT 2", [], {
      onexecute: (c: { terminate(): void }) => (c.terminate(), true),
    } as never).then(() => "answered", (err) => err.code);
    assert.equal(ended, "CONNECTION_DESTROYED");
    const started = performance.now();
    let n: unknown;
    while (n === undefined) {
      n = await sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`.then(([row]) => row.ssl, (err) => {
        if (err.code !== "CONNECTION_DESTROYED" || performance.now() - started > 5_000) throw err;
        return new Promise((r) => setTimeout(r, 20));
      });
    }
    const ms = performance.now() - started;
    console.log(`the next call on the ended connection (TLS): answered in ${ms.toFixed(0)} ms`);
    assert.equal(n, true);
    assert.ok(ms < 2_500, `the next call took ${ms.toFixed(0)} ms (connect_timeout: an SSLRequest never sent)`);
  } finally {
    await sql.end({ timeout: 1 });
  }
});
