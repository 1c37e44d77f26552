/**
 * The firmware file store, tested through its interface (server/files/firmware_files.ts) on the disk implementation:
 * a bucket implementation is to pass the same cases.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { diskFirmwareFiles } from "../../server/files/disk_firmware_files.ts";
import type { FirmwareFiles } from "../../server/files/firmware_files.ts";
import { listFiles } from "../../testing/server.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  assert.ok(stream, "the file is missing");
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function withStore(fn: (files: FirmwareFiles, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "fw-files-" });
  const dirs = { firmwares: `${dir}/firmwares`, tmp: `${dir}/tmp` };
  for (const d of Object.values(dirs)) await Deno.mkdir(d);
  try {
    await fn(diskFirmwareFiles(dirs), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes `bytes` in chunks of `chunk` bytes, honouring the put's backpressure. */
async function putBytes(files: FirmwareFiles, bytes: Uint8Array, chunk = 100_000) {
  const put = files.put();
  for (let off = 0; off < bytes.length; off += chunk) await put.write(bytes.subarray(off, off + chunk));
  return { put, stored: await put.finish() };
}

Deno.test("firmware files: put streamed and hashed, visible only once committed, ranges, remove, list", async () => {
  await withStore(async (files, dir) => {
    const bytes = Uint8Array.from({ length: 3_000_000 }, (_, i) => (i * 7919) >> 3);
    const { put, stored } = await putBytes(files, bytes);
    assert.deepEqual(stored, { size: bytes.length, sha256: sha256(bytes) });
    assert.equal(await files.open("fw1"), null, "not visible before commit");
    assert.deepEqual(await files.list(), []);
    await put.commit("fw1");
    await put.abort(); // a no-op after commit
    assert.deepEqual(await files.list(), ["fw1"]);
    assert.deepEqual(await readAll(await files.open("fw1")), bytes);
    assert.deepEqual(await readAll(await files.open("fw1", { start: 5, end: 9 })), bytes.subarray(5, 10));
    const tail = { start: bytes.length - 70_000, end: bytes.length - 1 };
    assert.deepEqual(await readAll(await files.open("fw1", tail)), bytes.subarray(tail.start));
    assert.deepEqual(await listFiles(`${dir}/tmp`), []);
    await files.remove("fw1");
    await files.remove("fw1"); // a missing file is not an error
    assert.equal(await files.open("fw1"), null);
    assert.deepEqual(await files.list(), []);
  });
});

Deno.test("firmware files: an aborted put leaves nothing, at any moment", async () => {
  await withStore(async (files, dir) => {
    await files.put().abort(); // before a byte
    const { put } = await putBytes(files, new Uint8Array(2_500_000).fill(7));
    await put.abort(); // after finish
    const half = files.put();
    await half.write(new Uint8Array(20_000_000)); // mid-stream, beyond the window
    await half.abort();
    assert.deepEqual(await listFiles(dir), []);
    await assert.rejects(half.commit("late"), /aborted/);
  });
});

Deno.test("firmware files: sweep removes files no row names and reports rows without a file", async () => {
  await withStore(async (files, dir) => {
    for (const id of ["keep", "orphan"]) await (await putBytes(files, new Uint8Array([1, 2, 3]))).put.commit(id);
    await Deno.writeTextFile(`${dir}/firmwares/stray.txt`, "not a firmware");
    const swept = await files.sweep(["keep", "gone"]);
    assert.deepEqual(swept, { removed: ["orphan.xz", "stray.txt"], missing: ["gone"] });
    assert.deepEqual(await files.list(), ["keep"]);
  });
});
