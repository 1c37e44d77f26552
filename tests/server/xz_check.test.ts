/** The xz check on its own: verdicts in words, backpressure, an early refusal, abort. */
import assert from "node:assert/strict";
import { requireXz, startXzCheck, xzProblem } from "../../server/files/xz_check.ts";
import { startFileWrite } from "../../server/files/file_write.ts";
import { CheckInterruptedError } from "../../server/files/stream_check.ts";
import { brokenXz, concat, filler, xzBytes, xzStreamOfSize } from "../../testing/xz_fixtures.ts";

const exists = (path: string) => {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
};

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

Deno.test("xz check fed by the write worker: same verdicts, an early refusal, abort while fed", async () => {
  await requireXz(); // probes whether the worker may open xz's stdin itself
  const dir = await Deno.makeTempDir({ prefix: "xz-fed-" });
  let n = 0;
  /** Writes `bytes` to a file through the worker, which feeds the check; the check's verdict and the file. */
  const fed = async (bytes: Uint8Array, chunk = 65_536) => {
    const check = startXzCheck();
    assert.ok(check.input, "this Linux lets the worker open xz's stdin");
    const path = `${dir}/${n++}.part`;
    const writer = startFileWrite(path);
    writer.feed(check.input);
    for (let off = 0; off < bytes.length; off += chunk) {
      assert.equal(check.write(bytes.subarray(off, off + chunk)), null, "the check never holds the bytes itself");
      await writer.write(bytes.subarray(off, off + chunk));
    }
    const [stored, problem] = await Promise.all([writer.finish(), check.finish()]);
    assert.deepEqual(await Deno.readFile(path), bytes, "the file is written as before");
    return { problem, stored };
  };
  try {
    const valid = xzBytes(concat([...filler(3_000_000)]));
    const { problem, stored } = await fed(valid);
    assert.equal(problem, null);
    assert.equal(stored.size, valid.length);
    assert.equal((await fed(xzBytes("tiny"), 1)).problem, null);
    assert.match((await fed(brokenXz.flippedMidBlock(valid))).problem!, /integrity check|corrupt/);
    assert.match((await fed(brokenXz.truncated(valid))).problem!, /ends before its xz stream does/);
    assert.match((await fed(xzBytes("no check", "none"))).problem!, /no integrity check/);

    // A stream that is not xz past its magic: refused while the upload is still open (the first chunk goes at once).
    const early = startXzCheck();
    const writer = startFileWrite(`${dir}/early.part`);
    writer.feed(early.input!);
    assert.equal(early.write(brokenXz.magicThenRandom(100_000)), null);
    await writer.write(brokenXz.magicThenRandom(100_000));
    assert.match(await early.refused, /corrupt/);
    // The worker goes on writing the file after xz has gone (a broken pipe is not a write failure).
    for (let i = 0; i < 20; i++) await writer.write(new Uint8Array(1 << 20));
    await writer.finish();

    // Aborted while fed: xz is killed, the worker stops feeding it and closes.
    const aborted = startXzCheck();
    const blocked = startFileWrite(`${dir}/aborted.part`);
    blocked.feed(aborted.input!);
    void blocked.write(valid.subarray(0, 1 << 20));
    aborted.abort();
    await blocked.close();
    assert.notEqual(await aborted.finish(), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("xz check: its stdin pipe is widened to 1 MiB where perl is at hand, and the process is xz itself", async () => {
  await requireXz();
  const check = startXzCheck();
  try {
    assert.ok(check.input, "this Linux lets a writer open xz's stdin");
    // The pipe's capacity, asked of the same pipe (F_GETPIPE_SZ) by another reader that reads nothing.
    const asked = await new Deno.Command("perl", {
      args: ["-e", "print fcntl(STDIN, 1032, 0)"],
      stdin: "null",
      stdout: "piped",
    }).spawn().output().catch(() => null);
    if (asked === null) {
      assert.equal(check.input.pipeBytes, 64 * 1024, "without perl the pipe keeps Linux's default");
      return;
    }
    const size = await new Deno.Command("bash", {
      args: ["-c", `perl -e 'print fcntl(STDIN, 1032, 0)' < /proc/${check.pid}/fd/0`],
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(size.stdout), String(1 << 20));
    assert.equal(check.input.pipeBytes, 1 << 20);
    for (let i = 0; i < 50 && Deno.readTextFileSync(`/proc/${check.pid}/comm`).trim() !== "xz"; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(Deno.readTextFileSync(`/proc/${check.pid}/comm`).trim(), "xz", "perl became xz (exec)");
  } finally {
    check.abort();
    await check.finish().catch(() => {});
  }
});

Deno.test("xz check fed by the event loop: through a Unix socket, same verdicts, early refusal, abort, nothing left", async () => {
  await requireXz(); // probes the socket input
  /** The socket's directory: where xz's input sockets are made. */
  const socketOf = (pid: number) => Deno.readLinkSync(`/proc/${pid}/fd/0`);
  const verdictBySocket = async (bytes: Uint8Array, chunk = 65_536) => {
    const check = startXzCheck({ fedByWriter: false });
    assert.equal(check.input, undefined, "no writer may take a socket over");
    for (let off = 0; off < bytes.length; off += chunk) await check.write(bytes.subarray(off, off + chunk));
    return await check.finish();
  };
  const valid = xzBytes(concat([...filler(3_000_000)]));
  const big = startXzCheck({ fedByWriter: false });
  let waited = 0;
  for await (const part of xzStreamOfSize(48 << 20)) {
    const wait = big.write(part);
    if (wait) {
      waited++;
      await wait;
    }
    if (waited === 1) {
      for (let i = 0; i < 50 && Deno.readTextFileSync(`/proc/${big.pid}/comm`).trim() !== "xz"; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.match(socketOf(big.pid), /^socket:/, "xz reads a socket");
    }
  }
  assert.equal(await big.finish(), null);
  assert.ok(waited > 0, "backpressure");
  assert.equal(await verdictBySocket(valid, 7_001), null);
  assert.equal(await verdictBySocket(xzBytes("tiny"), 1), null);
  assert.match((await verdictBySocket(brokenXz.flippedMidBlock(valid)))!, /integrity check|corrupt/);
  assert.match((await verdictBySocket(brokenXz.truncated(valid)))!, /ends before its xz stream does/);
  assert.match((await verdictBySocket(brokenXz.badFooter(valid)))!, /footer/);
  assert.match((await verdictBySocket(xzBytes("no check", "none")))!, /no integrity check/);

  const early = startXzCheck({ fedByWriter: false });
  void early.write(brokenXz.magicThenRandom(100_000));
  assert.match(await early.refused, /corrupt/);
  for (let i = 0; i < 8; i++) await early.write(new Uint8Array(1 << 20)); // xz has gone: the writes are dropped
  assert.match((await early.finish())!, /corrupt/);

  const aborted = startXzCheck({ fedByWriter: false });
  await aborted.write(valid.subarray(0, 1 << 20));
  aborted.abort();
  assert.notEqual(await aborted.finish(), null);

  // Each check's socket had a directory of its own, no other user's to enter, removed once xz connected.
  const dirs = [big.socketDir, early.socketDir, aborted.socketDir];
  assert.ok(dirs.every((d) => d?.includes("xz-input-")), "the socket input was probed to work here");
  for (let i = 0; i < 50 && dirs.some((d) => exists(d!)); i++) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(dirs.filter((d) => exists(d!)), []);
  const probe = startXzCheck({ fedByWriter: false });
  assert.equal((Deno.statSync(probe.socketDir!).mode! & 0o777).toString(8), "700");
  probe.abort();
  await probe.finish().catch(() => {});

  // A TMPDIR that takes no directory now: the check goes through the pipe, same verdict.
  const tmp = Deno.env.get("TMPDIR");
  Deno.env.set("TMPDIR", "/nonexistent/dir");
  try {
    const piped = startXzCheck({ fedByWriter: false });
    assert.equal(piped.socketDir, null);
    await piped.write(valid);
    assert.equal(await piped.finish(), null);
  } finally {
    if (tmp === undefined) Deno.env.delete("TMPDIR");
    else Deno.env.set("TMPDIR", tmp);
  }
});

Deno.test("xz check lent its bytes (a bucket put's parts): same verdicts, write() only reads the head, early refusal", async () => {
  await requireXz();
  const lentVerdict = async (bytes: Uint8Array, lendBytes = 1 << 20) => {
    const check = startXzCheck({ fedByWriter: false });
    assert.ok(check.lent, "a check fed through the socket takes lent bytes");
    check.lent.handOver();
    // The caller still passes its chunks to write(), which only reads the head from them.
    await check.write(bytes.slice(0, 64));
    for (let off = 0; off < bytes.length; off += lendBytes) await check.lent.lend(bytes.subarray(off, off + lendBytes));
    return await check.finish();
  };
  const valid = xzBytes(concat([...filler(3_000_000)]));
  assert.equal(await lentVerdict(valid), null);
  assert.equal(await lentVerdict(valid, 4_099), null);
  assert.equal(await lentVerdict(xzBytes("tiny"), 1), null);
  assert.match((await lentVerdict(brokenXz.flippedMidBlock(valid)))!, /integrity check|corrupt/);
  assert.match((await lentVerdict(brokenXz.truncated(valid)))!, /ends before its xz stream does/);
  assert.match((await lentVerdict(xzBytes("")))!, /holds no data/);

  // Bytes passed to write() after the hand-over never reach xz: a valid file whose write()s carry garbage passes.
  const ignored = startXzCheck({ fedByWriter: false });
  ignored.lent!.handOver();
  assert.equal(ignored.write(valid.subarray(0, 13)), null);
  assert.equal(ignored.write(new Uint8Array(100_000).fill(7)), null);
  await ignored.lent!.lend(valid);
  assert.equal(await ignored.finish(), null);

  const early = startXzCheck({ fedByWriter: false });
  early.lent!.handOver();
  const junk = brokenXz.magicThenRandom(100_000);
  early.write(junk);
  void early.lent!.lend(junk);
  assert.match(await early.refused, /corrupt/);
  await early.lent!.lend(new Uint8Array(1 << 20)); // xz has gone: settles, never rejects
  assert.match((await early.finish())!, /corrupt/);

  // The pipe (no socket) takes no lent bytes.
  const tmp = Deno.env.get("TMPDIR");
  Deno.env.set("TMPDIR", "/nonexistent/dir");
  try {
    const piped = startXzCheck({ fedByWriter: false });
    assert.equal(piped.lent, undefined);
    piped.abort();
    await piped.finish().catch(() => {});
  } finally {
    if (tmp === undefined) Deno.env.delete("TMPDIR");
    else Deno.env.set("TMPDIR", tmp);
  }
});
