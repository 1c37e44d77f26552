/**
 * The PostgreSQL driver's transactions under a full pipeline (vendor/postgres/PATCHES.md): every transaction runs on a
 * connection of its own, however many plain queries are pipelined beside it. The registry's postgres 3.4.9 fails this
 * (UNSAFE_TRANSACTION, or a transaction's statements on another backend) when a BEGIN is the query that fills a
 * connection's pipeline.
 */
import assert from "node:assert/strict";
import { connect } from "../../server/db/postgres/open.ts";
import { testDatabaseUrl } from "../../testing/postgres.ts";

Deno.test("driver: 3,000 transactions beside 6,000 pipelined queries on 2 connections, each on one backend", async () => {
  const sql = connect({ url: await testDatabaseUrl(), poolSize: 2 });
  try {
    const failures: string[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 3_000; i++) {
      calls.push(sql`SELECT ${i}::int AS n`, sql`SELECT pg_backend_pid() AS pid`);
      calls.push(
        sql.begin(async (tx) => {
          const [a] = await tx`SELECT pg_backend_pid() AS pid, txid_current() AS xid`;
          const [b] = await tx`SELECT pg_backend_pid() AS pid, txid_current() AS xid`;
          if (a.pid !== b.pid || a.xid !== b.xid) failures.push(`transaction ${i} ran on two backends or two xids`);
        }).catch((err) => failures.push(`transaction ${i}: ${(err as Error).message}`)),
      );
    }
    await Promise.all(calls);
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of 3,000 transactions failed`);
    // No connection was left inside a transaction for the pool's other queries.
    const open = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
                           WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
    assert.equal(open[0].n, 0);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

Deno.test("driver: a transaction reserves its connection even when its BEGIN fills the pipeline (max_pipeline=0)", async () => {
  // With max_pipeline=0 every query fills its connection's pipeline: the registry's 3.4.9 then skips the reservation of
  // every BEGIN and throws UNSAFE_TRANSACTION (porsager/postgres#1210). The URL's query sets the driver's option.
  const url = new URL(await testDatabaseUrl());
  url.searchParams.set("max_pipeline", "0");
  const sql = connect({ url: url.href, poolSize: 2 });
  try {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => sql.begin(async (tx) => (await tx`SELECT ${i}::int AS n`)[0].n)),
    );
    assert.deepEqual(results, Array.from({ length: 20 }, (_, i) => i));
  } finally {
    await sql.end({ timeout: 1 });
  }
});
