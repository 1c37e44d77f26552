/**
 * Audit checkpoints (docs/REQUIREMENTS.md §17): the chain's head in the JSON log, on /metrics and as write-once objects in the
 * bucket; `deno task audit-verify --checkpoint <file | s3>` catches a tail removed with the head row rewritten (which
 * the chain alone cannot show) and a tail rewritten with valid hashes; a checkpoint at shutdown.
 */
import assert from "node:assert/strict";
import { runSql } from "../../testing/sqlite_file.ts";
import { pgQuery } from "../../testing/postgres.ts";
import { startBucket } from "../../testing/s3.ts";
import { startServer, type TestServer } from "../../testing/server.ts";
import { auditVerify } from "../helpers/audit_verify.ts";

const METRICS_TOKEN = "metrics-token-0123456789";

async function sql(srv: TestServer, text: string) {
  if (srv.engineEnv.DATABASE_URL) await pgQuery(srv.engineEnv.DATABASE_URL, text);
  else runSql(`${srv.dataDir}/console.sqlite3`, text);
}

interface Checkpoint {
  count: number;
  hash: string;
}

/** The `audit.checkpoint` lines the server logged so far. */
const checkpointLines = (srv: TestServer): Checkpoint[] =>
  srv.output().split("\n").filter((l) => l.includes('"audit.checkpoint"')).map((l) => JSON.parse(l));

/** Waits (up to 20 s) for a checkpoint of `count` in the log, past its first `skip` checkpoint lines. */
async function logged(srv: TestServer, count: number, skip = 0): Promise<Checkpoint> {
  for (let i = 0; i < 200; i++) {
    const found = checkpointLines(srv).slice(skip).findLast((c) => c.count === count);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no audit.checkpoint of ${count} in the log:\n${srv.output().slice(-2000)}`);
}

async function headCount(srv: TestServer, token: string): Promise<number> {
  const r = await srv.fetch("/api/v1/audit?rowsPerPage=1", { token });
  return (await r.json()).total;
}

Deno.test("audit checkpoints: log, metrics, bucket; audit-verify --checkpoint catches a truncated or rewritten tail", async (t) => {
  await using bucket = await startBucket();
  await using srv = await startServer({
    bucket,
    env: { LOG_FORMAT: "json", AUDIT_CHECKPOINT_SECONDS: "1", METRICS_TOKEN },
  });
  const api = await srv.login();
  for (let i = 0; i < 3; i++) await api.createProductType(`Checkpointed ${i}`);
  // A checkpoint one entry before the head, as a tick between two writes publishes it: the rewritten tail below
  // contradicts it first.
  const beforeHead = await logged(srv, await headCount(srv, api.token));
  await api.createProductType("Checkpointed 3");
  const n = await headCount(srv, api.token);
  assert.equal(beforeHead.count, n - 1);
  const tmp = await Deno.makeTempDir({ prefix: "checkpoints-" });
  const log = `${tmp}/console.log`;
  const one = `${tmp}/checkpoint.json`;
  let published: Checkpoint;

  await t.step("the head is logged, on /metrics and in the bucket once it moved", async () => {
    published = await logged(srv, n);
    assert.match(published.hash, /^[0-9a-f]{64}$/);
    const metrics = await (await srv.fetch("/metrics", { token: METRICS_TOKEN })).text();
    assert.match(metrics, new RegExp(`^console_audit_head_count ${n}$`, "m"));
    assert.match(metrics, new RegExp(`^console_audit_head_info\\{count="${n}",hash="${published.hash}"\\} 1$`, "m"));
    for (let i = 0; i < 100 && !(await bucket.keys("audit/")).includes(`audit/checkpoints/${n}.json`); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const keys = await bucket.keys("audit/");
    assert.ok(keys.includes(`audit/checkpoints/${n}.json`), String(keys));
    assert.ok(keys.includes(`audit/checkpoints/${n - 1}.json`), String(keys)); // stored before the head's
    // Cheap: nothing new is published while the head stands still.
    const lines = checkpointLines(srv).length;
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(checkpointLines(srv).length, lines);
  });

  await t.step("audit-verify holds the intact chain to the log's, a file's and the bucket's checkpoints", async () => {
    await Deno.writeTextFile(log, srv.output());
    await Deno.writeTextFile(one, JSON.stringify({ count: published.count, hash: published.hash }));
    for (const args of [["--checkpoint", log], ["--checkpoint", one], ["--checkpoint", "s3"]]) {
      const ok = await auditVerify(srv, args, bucket.env);
      assert.equal(ok.code, 0, `${args.join(" ")}: ${ok.out}`);
      assert.match(ok.out, new RegExp(`Audit trail intact: ${n} entries.*checkpoint\\(s\\) held, the latest ${n}`));
    }
    const usage = await auditVerify(srv, ["--checkpoint", `${tmp}/none.json`]);
    assert.equal(usage.code, 2, usage.out);
  });

  await t.step("a tail removed with the head row rewritten: intact alone, caught by the checkpoint", async () => {
    const keep = n - 2;
    await sql(srv, `DELETE FROM audit_entries WHERE seq > ${keep}`);
    await sql(srv, `UPDATE audit_head SET seq = ${keep}, hash = (SELECT hash FROM audit_entries WHERE seq = ${keep})`);
    const alone = await auditVerify(srv, []);
    assert.equal(alone.code, 0, alone.out); // what the checkpoints are for
    for (const source of [one, log, "s3"]) {
      const caught = await auditVerify(srv, ["--checkpoint", source], bucket.env);
      assert.equal(caught.code, 1, `${source}: ${caught.out}`);
      assert.match(caught.out, new RegExp(`checkpoint ${n} \\(hash ${published.hash}\\) is missing`), caught.out);
    }
  });

  await t.step("a tail rewritten with valid hashes: caught; the bucket's object is never overwritten", async () => {
    // The server appends after the rewritten head: the chain is whole again, and as long, but not the one published.
    const skip = checkpointLines(srv).length;
    await api.createProductType("Rewritten 1");
    await api.createProductType("Rewritten 2");
    assert.equal(await headCount(srv, api.token), n);
    const rewritten = await logged(srv, n, skip);
    assert.notEqual(rewritten.hash, published.hash);
    assert.equal((await auditVerify(srv, [])).code, 0);
    await new Promise((r) => setTimeout(r, 1500)); // the server's tick tries to store its checkpoint of n again
    // The first checkpoint past the entries kept is the one named: the file holds only the head's; the log and the
    // bucket hold the one before it too.
    for (const [source, first] of [[one, published], [log, beforeHead], ["s3", beforeHead]] as const) {
      const caught = await auditVerify(srv, ["--checkpoint", source], bucket.env);
      assert.equal(caught.code, 1, `${source}: ${caught.out}`);
      assert.match(
        caught.out,
        new RegExp(`checkpoint ${first.count} \\(hash ${first.hash}\\) is contradicted`),
        `${source}: ${caught.out}`,
      );
    }
  });
  await Deno.remove(tmp, { recursive: true });
});

Deno.test("audit checkpoints: the head is published at shutdown (a text log too)", async () => {
  await using srv = await startServer({ env: { LOG_FORMAT: "text" } });
  const api = await srv.login();
  await api.createProductType("Before shutdown");
  const n = await headCount(srv, api.token);
  const textLines = () => [...srv.output().matchAll(/ audit\.checkpoint count=(\d+) hash=([0-9a-f]{64}) at=\S+$/gm)];
  assert.ok(!textLines().some((m) => Number(m[1]) === n), "published before the stop (the interval is 10 min)");
  assert.equal(await srv.stop("SIGTERM"), 0);
  assert.equal(Number(textLines().at(-1)?.[1]), n, srv.output().slice(-1500));
  const log = await Deno.makeTempFile({ suffix: ".log" });
  await Deno.writeTextFile(log, srv.output());
  const ok = await auditVerify(srv, ["--checkpoint", log]);
  await Deno.remove(log);
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, new RegExp(`the latest ${n} `));
});
