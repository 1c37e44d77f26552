/**
 * The runners (server/db/runner.ts) on both engines: what a store written once relies on — a throw rolls the whole
 * transaction back, a driver error reaches the generator (so a store can catch it), a nested transaction joins the
 * outer one, and on SQLite the call has run to its end before run() returns (no turn taken inside a transaction).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConflictError } from "../../server/db/errors.ts";
import { all, dialect, type Engine, one, run, write } from "../../server/db/runner.ts";
import { openDatabase } from "../../server/db/sqlite/open.ts";
import { sqliteEngine } from "../../server/db/sqlite/runner.ts";
import { connect } from "../../server/db/postgres/open.ts";
import { postgresEngine } from "../../server/db/postgres/runner.ts";
import { pgQuery, testDatabaseUrl } from "../../testing/postgres.ts";

const TABLE = "CREATE TABLE scratch (id TEXT PRIMARY KEY, n INTEGER NOT NULL)";

function* insert(id: string, n: number) {
  yield* run("INSERT INTO scratch (id, n) VALUES (?, ?)", id, n);
}

const ids = (engine: Engine) =>
  engine.run(all<{ id: string }>("SELECT id FROM scratch ORDER BY id")).then((rows) => rows.map((r) => r.id));

async function cases(engine: Engine) {
  // A throw after writes: none of them stays; the caller gets the error as thrown.
  await assert.rejects(
    engine.run(write(function* () {
      yield* insert("a", 1);
      yield* insert("b", 2);
      throw new ConflictError("no");
    })),
    (err) => err instanceof ConflictError && err.message === "no",
  );
  assert.deepEqual(await ids(engine), []);

  // A driver error is thrown into the generator: the store catches it and answers its own error; nothing stays.
  await engine.run(write(() => insert("a", 1)));
  await assert.rejects(
    engine.run(write(function* () {
      const d = yield* dialect();
      yield* insert("c", 3);
      try {
        yield* insert("a", 9);
      } catch (err) {
        if (d.isUniqueViolation(err)) throw new ConflictError("a is taken");
        throw err;
      }
    })),
    (err) => err instanceof ConflictError && err.message === "a is taken",
  );
  assert.deepEqual(await ids(engine), ["a"]);

  // A nested transaction joins the outer one: the inner body's throw rolls back the outer's writes too.
  await assert.rejects(
    engine.run(write(function* () {
      yield* insert("d", 4);
      yield* write(function* () {
        yield* insert("e", 5);
        throw new Error("inner");
      });
    })),
    /inner/,
  );
  assert.deepEqual(await ids(engine), ["a"]);

  // A body's answer, one(), run()'s count and ? placeholders (numbered on PostgreSQL) with a list.
  const answer = await engine.run(write(function* () {
    const d = yield* dialect();
    yield* insert("f", 6);
    const changed = yield* run(`UPDATE scratch SET n = n + 1 WHERE ${d.inList("id")} AND n > ?`, d.list(["a", "f"]), 0);
    return { changed, f: (yield* one<{ n: number }>("SELECT n FROM scratch WHERE id = ?", "f"))!.n };
  }));
  assert.deepEqual(answer, { changed: 2, f: 7 });
  assert.equal(await engine.run(one("SELECT n FROM scratch WHERE id = ?", "zzz")), undefined);
}

Deno.test("runner: SQLite", async () => {
  const dir = await Deno.makeTempDir({ prefix: "runner-sqlite-" });
  const db = openDatabase(join(dir, "console.sqlite3"));
  try {
    db.exec(TABLE);
    const engine = sqliteEngine(db);
    await cases(engine);
    // Synchronous: the write has committed by the time run() returns, before any await.
    const pending = engine.run(write(() => insert("sync", 1)));
    assert.equal((db.prepare("SELECT count(*) AS n FROM scratch WHERE id = 'sync'").get() as { n: number }).n, 1);
    assert.equal(db.isTransaction, false);
    await pending;
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runner: PostgreSQL", async () => {
  const url = await testDatabaseUrl();
  await pgQuery(url, TABLE);
  const sql = connect({ url, poolSize: 2 });
  try {
    await cases(postgresEngine(sql));
  } finally {
    await sql.end({ timeout: 1 });
  }
});
