/**
 * The session limits of docs/REQUIREMENTS.md §19's "Stores fail fast" (server/db/postgres/open.ts, TIMEOUTS): every pooled
 * connection carries statement_timeout, lock_timeout and idle_in_transaction_session_timeout to the server, and a call
 * one of them ends is a StoreUnavailableError (503 unavailable), never a refused statement (500). DATABASE_URL's query
 * overrides them (docs/SCALING.md): the cases that wait use that to stay short. Why 10 s and 5 s: docs/DECISIONS.md,
 * "Stores fail fast"; a stopped or frozen server is tests/postgres/fault_replicas.test.ts's.
 */
import assert from "node:assert/strict";
import { openStores, StoreUnavailableError } from "../../server/db/mod.ts";
import { connect, isUnavailable, TIMEOUTS, write } from "../../server/db/postgres/open.ts";
import { testDatabaseUrl } from "../../testing/postgres.ts";

const withQuery = (url: string, query: string) => `${url}${url.includes("?") ? "&" : "?"}${query}`;

/** A connection of another client holding an ACCESS EXCLUSIVE lock on product_types until release() is called. */
async function holdTable(url: string) {
  const other = connect({ url, poolSize: 1 });
  const conn = await other.reserve();
  await conn`BEGIN`;
  await conn`LOCK TABLE product_types IN ACCESS EXCLUSIVE MODE`;
  return {
    async release() {
      await conn`ROLLBACK`;
      conn.release();
      await other.end();
    },
  };
}

/** What a store call rejected with, and after how long. */
async function failure(call: () => Promise<unknown>) {
  const started = performance.now();
  const err = await call().then(() => null, (e: unknown) => e);
  return { err, ms: performance.now() - started };
}

const code = (err: unknown) => ((err as { cause?: { code?: string } }).cause?.code);

Deno.test("postgres timeouts: every pooled connection carries the limits; a call they end is unavailable", async (t) => {
  const url = await testDatabaseUrl();
  await (await openStores({ engine: "postgres", url, poolSize: 1 })).close(); // migrated

  await t.step("the defaults reach the server", async () => {
    const sql = connect({ url, poolSize: 1 });
    try {
      const show = async (name: string) => (await sql.unsafe(`SHOW ${name}`))[0][name];
      assert.equal(await show("statement_timeout"), `${TIMEOUTS.statementMs / 1000}s`);
      assert.equal(await show("lock_timeout"), `${TIMEOUTS.lockMs / 1000}s`);
      assert.equal(await show("idle_in_transaction_session_timeout"), `${TIMEOUTS.idleInTransactionMs / 1000}s`);
      // Not a limit, set the same way: no JIT compile in any statement (server default on).
      assert.equal(await show("jit"), "off");
    } finally {
      await sql.end();
    }
  });

  await t.step("a lock held by a stuck client: the write fails unavailable at lock_timeout", async () => {
    const stores = await openStores({ engine: "postgres", url: withQuery(url, "lock_timeout=300"), poolSize: 2 });
    const held = await holdTable(url);
    try {
      const { err, ms } = await failure(() => stores.productTypes.create("Behind a stuck lock"));
      console.log(`lock_timeout=300 ms: ${(err as Error)?.constructor.name} ${code(err)} after ${ms.toFixed(0)} ms`);
      assert.ok(err instanceof StoreUnavailableError, String(err));
      assert.equal(code(err), "55P03");
    } finally {
      await held.release();
      await stores.close();
    }
  });

  await t.step("a statement past statement_timeout: the read fails unavailable", async () => {
    const stores = await openStores({ engine: "postgres", url: withQuery(url, "statement_timeout=300"), poolSize: 2 });
    const held = await holdTable(url);
    try {
      const { err, ms } = await failure(() => stores.productTypes.list());
      console.log(
        `statement_timeout=300 ms: ${(err as Error)?.constructor.name} ${code(err)} after ${ms.toFixed(0)} ms`,
      );
      assert.ok(err instanceof StoreUnavailableError, String(err));
      assert.equal(code(err), "57014");
    } finally {
      await held.release();
      await stores.close();
    }
    // Once the lock is gone the same stores answer again (a fresh set: closed above).
    const again = await openStores({ engine: "postgres", url, poolSize: 1 });
    assert.ok(Array.isArray(await again.productTypes.list()));
    await again.close();
  });

  await t.step("a transaction left idle is ended by the server, and that counts as unavailable", async () => {
    const sql = connect({ url: withQuery(url, "idle_in_transaction_session_timeout=300"), poolSize: 1 });
    try {
      // As the server's transactions run (open.ts): the second statement comes after the client idled too long.
      const err = await write(sql, async (tx) => {
        await tx`SELECT 1`;
        await new Promise((r) => setTimeout(r, 900));
        await tx`SELECT 1`;
      }).then(() => null, (e: unknown) => e);
      console.log(`idle_in_transaction_session_timeout=300 ms: ${(err as { code?: string })?.code}`);
      assert.ok(err && isUnavailable(err), String(err));
      // The pool's one connection connects afresh, outside any transaction.
      const [{ xid }] = await sql`SELECT txid_current_if_assigned() AS xid`;
      assert.equal(xid, null);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
