/**
 * Calls that wait for a connection when PostgreSQL is gone (server/db/postgres/runner.ts, watchdog.ts): the driver
 * tries one connection at a time for its queued calls, each attempt 0.1 s after the one before failed, so 40 calls
 * queued on a pool of one would fail over 4 s. At the watchdog's verdict (the probe refused) every call that waits
 * without having sent a write fails at once, and a transaction failed so is never begun afterwards.
 */
import assert from "node:assert/strict";
import { startPostgres } from "../../testing/postgres.ts";
import { connect } from "../../server/db/postgres/open.ts";
import { postgresEngine } from "../../server/db/postgres/runner.ts";
import { PROBE_MS, Sockets, SUSPECT_MS, Watchdog } from "../../server/db/postgres/watchdog.ts";
import { all, one, write } from "../../server/db/runner.ts";
import { StoreUnavailableError } from "../../server/db/errors.ts";

Deno.test("a stopped database: calls waiting for a connection fail at the verdict; their transactions never begin", async () => {
  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  const pool = new Sockets(), probeSockets = new Sockets();
  const sql = connect({ url, poolSize: 1 }, { sockets: pool, idleTimeoutSeconds: 0 });
  const probe = connect({ url, poolSize: 1 }, { sockets: probeSockets, idleTimeoutSeconds: 0 });
  const dog = new Watchdog(() => probe`SELECT 1`, [pool, probeSockets]);
  const engine = postgresEngine(sql, dog);
  try {
    await engine.run(one("SELECT 1 AS n"));
    await probe`SELECT 1`;
    await engine.run(all("CREATE TABLE marks (n integer)"));

    await pg.stop();
    let begun = 0;
    const started = performance.now();
    const calls = Array.from(
      { length: 40 },
      (_, i) =>
        (i % 2 ? engine.run(all("SELECT 1 AS n")) : engine.run(write(function* () {
          begun++;
          yield* all("INSERT INTO marks VALUES (?)", i);
        }))).then(
          () => ({ ok: true, ms: performance.now() - started }),
          (err) => ({ ok: false, unavailable: err instanceof StoreUnavailableError, ms: performance.now() - started }),
        ),
    );
    const answers = await Promise.all(calls);
    const slowest = Math.max(...answers.map((a) => a.ms));
    console.log(`40 calls on a pool of one, the database stopped: all failed after ${slowest.toFixed(0)} ms`);
    assert.deepEqual(answers.filter((a) => a.ok || !("unavailable" in a && a.unavailable)), []);
    // The driver alone: ≥ 40 × 0.1 s. The verdict comes SUSPECT_MS + PROBE_MS at most after the calls began.
    assert.ok(slowest < SUSPECT_MS + PROBE_MS + 1_500, `the last call failed after ${slowest.toFixed(0)} ms`);

    await pg.start();
    for (let i = 0;; i++) {
      const ok = await engine.run(one("SELECT 1 AS n")).then(() => true, () => false);
      if (ok) break;
      assert.ok(i < 100, "the database did not come back");
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM marks`;
    assert.equal(n, 0, "a transaction failed as unavailable was written after the database's return");
    assert.equal(begun, 0, "a transaction failed while waiting for its connection was begun");
  } finally {
    dog.close();
    await Promise.all([sql.end({ timeout: 1 }), probe.end({ timeout: 1 })]);
  }
});
