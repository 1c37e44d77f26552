/** The xz check on its own: verdicts in words, backpressure, an early refusal, abort. */
import assert from "node:assert/strict";
import { startXzCheck, xzProblem } from "../../server/files/xz_check.ts";
import { CheckInterruptedError } from "../../server/files/stream_check.ts";
import { brokenXz, concat, filler, xzBytes, xzStreamOfSize } from "../../testing/xz_fixtures.ts";

async function verdict(bytes: Uint8Array, chunk = 4096): Promise<string | null> {
  const check = startXzCheck();
  for (let off = 0; off < bytes.length; off += chunk) await check.write(bytes.subarray(off, off + chunk));
  return await check.finish();
}

Deno.test("xz check: valid files pass whatever the chunking; broken ones are named", async () => {
  const valid = xzBytes(concat([...filler(200_000)]));
  for (const chunk of [7, 4096, valid.length]) assert.equal(await verdict(valid, chunk), null, `chunks of ${chunk}`);
  assert.equal(await verdict(xzBytes("tiny"), 1), null);
  assert.match((await verdict(brokenXz.truncated(valid)))!, /ends before its xz stream does/);
  assert.match((await verdict(brokenXz.flippedMidBlock(valid)))!, /integrity check/);
  assert.match((await verdict(brokenXz.badFooter(valid)))!, /footer/);
  assert.match((await verdict(xzBytes("")))!, /holds no data/);
  assert.match((await verdict(xzBytes("no check", "none")))!, /no integrity check/);
});

Deno.test("xz check: xz's messages become sentences without the tool's name or a path", () => {
  assert.match(xzProblem("xz: (stdin): Compressed data is corrupt\n"), /^its compressed data is corrupt/);
  assert.match(xzProblem("xz: (stdin): Unexpected end of input\n"), /^the file ends before/);
  assert.match(xzProblem("xz: (stdin): File format not recognized\n"), /^it is not in the xz format$/);
  assert.match(xzProblem("xz: (stdin): Memory usage limit reached\n"), /memory/);
  assert.equal(xzProblem("xz: (stdin): Something new\n"), "xz refused it (Something new)");
  assert.equal(xzProblem(""), "xz refused it");
});

Deno.test("xz check: 64 MiB with backpressure, an early refusal before the end, abort leaves nothing running", async () => {
  const check = startXzCheck();
  let waited = 0;
  for await (const part of xzStreamOfSize(64 * 1024 * 1024)) {
    const wait = check.write(part);
    if (wait) {
      waited++;
      await wait;
    }
  }
  assert.equal(await check.finish(), null);
  assert.ok(waited > 0, "the check never asked the writer to wait");

  const early = startXzCheck();
  void early.write(brokenXz.magicThenRandom(100_000));
  const problem = await early.refused;
  assert.match(problem, /corrupt/);
  assert.equal(early.write(new Uint8Array(10)), null, "writes after xz has exited are ignored");
  assert.equal(await early.finish(), problem);

  const aborted = startXzCheck();
  await aborted.write(xzBytes("half").subarray(0, 20));
  aborted.abort();
  aborted.abort();
  assert.notEqual(await aborted.finish(), null);
});

Deno.test("xz check: runs in a session of its own; killed by a signal, it is interrupted, not a verdict on the file", async () => {
  const stat = (pid: number) => Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  const [, , ourGroup, ourSession] = stat(Deno.pid);
  const valid = xzBytes(concat([...filler(100_000)]));

  // refused rejects at once (the upload is answered 503 without waiting for the rest); finish() throws it too.
  const early = startXzCheck();
  await early.write(valid.subarray(0, 1000));
  const [, , group, session] = stat(early.pid);
  assert.equal(group, String(early.pid), "xz leads a process group of its own");
  assert.notEqual(group, ourGroup);
  assert.notEqual(session, ourSession);
  Deno.kill(early.pid, "SIGINT");
  await assert.rejects(early.refused, CheckInterruptedError);
  await assert.rejects(early.finish(), /stopped by SIGINT/);
});
