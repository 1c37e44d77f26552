/**
 * The engine's transactions (server/db/postgres/open.ts) under a full pipeline: every transaction runs on a connection
 * of its own, however many plain queries are pipelined beside it, and a connection goes back to the pool only outside a
 * transaction. npm postgres 3.4.9's `sql.begin()` fails this (UNSAFE_TRANSACTION, or a transaction's statements on
 * another backend) when a BEGIN is the query that fills a connection's pipeline: docs/DECISIONS.md, "The PostgreSQL
 * driver's transaction race".
 */
import assert from "node:assert/strict";
import { connect, isUnavailable, keyed, read, type Sql, unlocked, write } from "../../server/db/postgres/open.ts";
import { Sockets } from "../../server/db/postgres/watchdog.ts";
import { testDatabaseUrl } from "../../testing/postgres.ts";

const KINDS = [
  (sql: Sql, fn: (tx: Sql) => Promise<unknown>) => write(sql, fn),
  (sql: Sql, fn: (tx: Sql) => Promise<unknown>) => unlocked(sql, fn),
  (sql: Sql, fn: (tx: Sql) => Promise<unknown>) => read(sql, fn),
  (sql: Sql, fn: (tx: Sql) => Promise<unknown>) => keyed(sql, "k", fn),
];

/** Connections of this database left inside a transaction. */
async function idleInTransaction(sql: Sql): Promise<number> {
  const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
                          WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
  return row.n;
}

Deno.test("transactions: 3,000 beside 6,000 pipelined queries on 2 connections, each on one backend", async () => {
  const sql = connect({ url: await testDatabaseUrl(), poolSize: 2 });
  try {
    const failures: string[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 3_000; i++) {
      calls.push(sql`SELECT ${i}::int AS n`, sql`SELECT pg_backend_pid() AS pid`);
      calls.push(
        KINDS[i % KINDS.length](sql, async (tx) => {
          const [a] = await tx`SELECT pg_backend_pid() AS pid, txid_current_if_assigned() AS xid, now() AS t`;
          const [b] = await tx.unsafe("SELECT pg_backend_pid() AS pid, txid_current_if_assigned() AS xid, now() AS t");
          if (a.pid !== b.pid || a.t.getTime() !== b.t.getTime()) failures.push(`transaction ${i}: two backends`);
        }).catch((err) => failures.push(`transaction ${i}: ${(err as Error).message}`)),
      );
    }
    await Promise.all(calls);
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of 3,000 transactions failed`);
    assert.equal(await idleInTransaction(sql), 0);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

Deno.test("transactions: each reserves its connection even when every BEGIN fills the pipeline (max_pipeline=0)", async () => {
  // With max_pipeline=0 every query fills its connection's pipeline: sql.begin() of the registry's 3.4.9 then skips the
  // reservation of every BEGIN and throws UNSAFE_TRANSACTION (porsager/postgres#1210). The URL's query sets the option.
  const url = new URL(await testDatabaseUrl());
  url.searchParams.set("max_pipeline", "0");
  const sql = connect({ url: url.href, poolSize: 2 });
  try {
    const results = await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) => KINDS[i % KINDS.length](sql, async (tx) => (await tx`SELECT ${i}::int AS n`)[0].n),
      ),
    );
    assert.deepEqual(results, Array.from({ length: 40 }, (_, i) => i));
    assert.equal(await idleInTransaction(sql), 0);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

Deno.test("transactions: a failed body is rolled back and its connection serves the pool outside a transaction", async () => {
  const sql = connect({ url: await testDatabaseUrl(), poolSize: 1 });
  try {
    await sql`CREATE TABLE t (id int PRIMARY KEY)`;
    await assert.rejects(
      write(sql, async (tx) => {
        await tx`INSERT INTO t VALUES (1)`;
        await tx`INSERT INTO t VALUES (1)`; // a unique violation: the transaction is aborted
      }),
      (err: { code?: string }) => err.code === "23505",
    );
    await assert.rejects(
      unlocked(sql, async (tx) => {
        await tx`INSERT INTO t VALUES (2)`;
        throw new Error("the body's own failure");
      }),
      /the body's own failure/,
    );
    assert.deepEqual([...await sql`SELECT id FROM t`], []);
    const [{ xid }] = await sql`SELECT txid_current_if_assigned() AS xid`;
    assert.equal(xid, null, "the pool's next query ran inside a transaction");
    assert.equal(await write(sql, async (tx) => (await tx`INSERT INTO t VALUES (3) RETURNING id`)[0].id), 3);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

Deno.test("transactions: a connection lost inside a transaction fails it as unavailable and never serves the pool again", async () => {
  const url = await testDatabaseUrl();
  const sql = connect({ url, poolSize: 1 });
  const admin = connect({ url, poolSize: 1 });
  try {
    await sql`CREATE TABLE t (id int PRIMARY KEY)`;
    const err = await write(sql, async (tx) => {
      await tx`INSERT INTO t VALUES (1)`;
      const [{ pid }] = await tx`SELECT pg_backend_pid() AS pid`;
      await admin`SELECT pg_terminate_backend(${pid})`;
      await tx`SELECT 1`;
    }).then(() => null, (e) => e);
    assert.ok(err && isUnavailable(err), `expected an unavailable error, got ${err}`);
    // The one connection of the pool connects afresh, outside any transaction; the insert was rolled back. (The driver
    // may fail the first query on it with the old session's FATAL, as it does after any query that lost its backend.)
    const afresh = () => sql`SELECT txid_current_if_assigned() AS xid, (SELECT count(*)::int FROM t) AS n`;
    const [row] = await afresh().catch((e) => {
      assert.equal(e.code, "57P01");
      return afresh();
    });
    assert.deepEqual({ ...row }, { xid: null, n: 0 });
    assert.equal(await read(sql, async (tx) => (await tx`SELECT count(*)::int AS n FROM t`)[0].n), 0);
  } finally {
    await sql.end({ timeout: 1 });
    await admin.end({ timeout: 1 });
  }
});

Deno.test("transactions: one waiting for a connection is served when the watchdog ended the connections", async () => {
  // The driver hands the first waiting reservation to a lost connection's reconnect, which forgets it when it succeeds:
  // without asking again, the second transaction would wait for ever (seen with PostgreSQL stopped and started again).
  const sockets = new Sockets();
  const sql = connect({ url: await testDatabaseUrl(), poolSize: 1 }, { sockets });
  try {
    let holding!: () => void, letGo!: () => void;
    const held = new Promise<void>((r) => holding = r);
    // The first holds the pool's one connection, idle inside its transaction.
    const first = write(sql, async (tx) => {
      await tx`SELECT 1`;
      holding();
      await new Promise<void>((r) => letGo = r);
      await tx`SELECT 2`;
    }).then(() => "committed", (e) => e.code);
    await held;
    const second = read(sql, async (tx) => (await tx`SELECT 42 AS n`)[0].n);
    await new Promise((r) => setTimeout(r, 100)); // the second is waiting for the pool's one connection
    sockets.endAll(); // as the watchdog does when the server does not answer
    await new Promise((r) => setTimeout(r, 100));
    letGo();
    assert.ok(await first !== "committed", "the first failed");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = await Promise.race([
      second.catch((e) => `failed: ${e.code}`),
      new Promise((r) => timer = setTimeout(() => r("still waiting after 15 s"), 15_000)),
    ]).finally(() => clearTimeout(timer));
    assert.equal(answer, 42);
    assert.equal(await read(sql, async (tx) => (await tx`SELECT 7 AS n`)[0].n), 7);
  } finally {
    await sql.end({ timeout: 1 });
  }
});
