/**
 * The firmware file store, tested through its interface (server/files/firmware_files.ts): on the disk, or with
 * TEST_FIRMWARE_STORE=s3 on a bucket of a real S3 protocol server (testing/s3.ts).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { diskFirmwareFiles } from "../../server/files/disk_firmware_files.ts";
import type { FirmwareFiles } from "../../server/files/firmware_files.ts";
import { listFiles } from "../../testing/server.ts";
import { bucketFirmwareFiles, firmwareStoreUnderTest, startBucket } from "../../testing/s3.ts";

const hash = (kind: string) => (bytes: Uint8Array) => createHash(kind).update(bytes).digest("hex");
const [sha256, sha1, md5] = [hash("sha256"), hash("sha1"), hash("md5")];

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  assert.ok(stream, "the file is missing");
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `stored()` lists everything the store holds (files on disk, objects in the bucket), to check nothing is left. */
async function withStore(fn: (files: FirmwareFiles, stored: () => Promise<string[]>) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "fw-files-" });
  const dirs = { firmwares: `${dir}/firmwares`, tmp: `${dir}/tmp` };
  for (const d of Object.values(dirs)) await Deno.mkdir(d);
  await using bucket = firmwareStoreUnderTest() === "s3" ? await startBucket() : null;
  try {
    if (bucket) {
      const files = bucketFirmwareFiles(bucket);
      await fn(files, () => bucket.keys());
    } else {
      await fn(diskFirmwareFiles(dirs), () => listFiles(dir));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes `bytes` in chunks of `chunk` bytes, honouring the put's backpressure. */
async function putBytes(files: FirmwareFiles, bytes: Uint8Array, chunk = 100_000, id?: string) {
  const put = files.put(id);
  for (let off = 0; off < bytes.length; off += chunk) await put.write(bytes.subarray(off, off + chunk));
  return { put, stored: await put.finish() };
}

Deno.test("firmware files: put streamed and hashed, visible only once committed, ranges, remove, list", async () => {
  await withStore(async (files, stored) => {
    const bytes = Uint8Array.from({ length: 3_000_000 }, (_, i) => (i * 7919) >> 3);
    const put = files.put("fw1");
    assert.equal(put.id, "fw1");
    for (let off = 0; off < bytes.length; off += 100_000) await put.write(bytes.subarray(off, off + 100_000));
    assert.equal(await files.open("fw1"), null, "not visible before it is finished");
    assert.deepEqual(await files.list(), []);
    // sha1 and md5 for hawkBit DDI, computed in the same pass.
    assert.deepEqual(await put.finish(), {
      size: bytes.length,
      sha256: sha256(bytes),
      sha1: sha1(bytes),
      md5: md5(bytes),
    });
    await put.commit();
    await put.abort(); // a no-op after commit
    assert.deepEqual(await files.list(), ["fw1"]);
    assert.deepEqual(await readAll(await files.open("fw1")), bytes);
    assert.deepEqual(await readAll(await files.open("fw1", { start: 5, end: 9 })), bytes.subarray(5, 10));
    const tail = { start: bytes.length - 70_000, end: bytes.length - 1 };
    assert.deepEqual(await readAll(await files.open("fw1", tail)), bytes.subarray(tail.start));
    assert.equal((await stored()).length, 1);
    await files.remove("fw1");
    await files.remove("fw1"); // a missing file is not an error
    assert.equal(await files.open("fw1"), null);
    assert.deepEqual(await files.list(), []);
  });
});

Deno.test("firmware files: an aborted put leaves nothing, at any moment", async () => {
  await withStore(async (files, stored) => {
    await files.put().abort(); // before a byte
    const { put } = await putBytes(files, new Uint8Array(2_500_000).fill(7));
    await put.abort(); // after finish
    const half = files.put();
    await half.write(new Uint8Array(20_000_000)); // mid-stream, beyond the window
    await half.abort();
    assert.deepEqual(await stored(), []);
    await assert.rejects(half.commit(), /aborted/);
  });
});

Deno.test("firmware files: sweep removes files no row names and reports rows without a file", async () => {
  await withStore(async (files) => {
    for (const id of ["keep", "orphan"]) await (await putBytes(files, new Uint8Array([1, 2, 3]), 100, id)).put.commit();
    const stray = files.put("stray");
    await stray.write(new Uint8Array([4]));
    await stray.finish();
    await stray.commit();
    const swept = await files.sweep(["keep", "gone"]);
    assert.deepEqual(swept, { removed: ["orphan.xz", "stray.xz"], missing: ["gone"] });
    assert.deepEqual(await files.list(), ["keep"]);
  });
});
