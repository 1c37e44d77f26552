/**
 * A put to the bucket sends its parts itself (server/files/bucket_put.ts): the part size for the configured limit, the
 * chunks copied into parts whatever their sizes (a chunk that spans two parts, one larger than a part), the object
 * assembled from those parts with the digests of the bytes sent, each part's payload unsigned with a CRC32, and
 * nothing left after an abort mid-stream or after finish; the server's parts go without `Expect: 100-continue`, on
 * kept-alive connections.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { S3Client } from "@aws-sdk/client-s3";
import { bucketParts, type PartSender } from "../../server/files/bucket_parts.ts";
import { bucketPut, partSizeFor, unsignedParts } from "../../server/files/bucket_put.ts";
import { s3FirmwareFiles } from "../../server/files/s3_firmware_files.ts";
import { bucketFirmwareFiles, startBucket, TEST_BUCKET } from "../../testing/s3.ts";

const MiB = 1 << 20;
const hex = (kind: string, bytes: Uint8Array) => createHash(kind).update(bytes).digest("hex");

Deno.test("bucket parts: 5 MiB up to ~48.8 GiB of MAX_FIRMWARE_BYTES, then whole MiB that fit 10,000 parts", () => {
  assert.equal(partSizeFor(), 5 * MiB);
  assert.equal(partSizeFor(1 << 30), 5 * MiB);
  assert.equal(partSizeFor(10_000 * 5 * MiB), 5 * MiB);
  assert.equal(partSizeFor(10_000 * 5 * MiB + 1), 6 * MiB);
  assert.equal(partSizeFor(100 * 2 ** 30), 11 * MiB);
  assert.ok(partSizeFor(5 * 2 ** 40) * 10_000 >= 5 * 2 ** 40, "S3's largest object fits");
});

Deno.test("bucket parts: chunks of any size become whole parts; the object is theirs, with the bytes' digests", async () => {
  await using bucket = await startBucket();
  const files = bucketFirmwareFiles(bucket);
  const sent: { command: string; part?: number; bytes?: number; payload?: string; crc32?: string }[] = [];
  const spied = () => {
    const client = new S3Client({ region: "us-east-1", endpoint: bucket.endpoint, forcePathStyle: true });
    client.middlewareStack.add((next, context) => (args) => {
      const input = args.input as { PartNumber?: number; ContentLength?: number };
      const headers = (args.request as { headers: Record<string, string> }).headers;
      sent.push({
        command: context.commandName!,
        part: input.PartNumber,
        bytes: input.ContentLength,
        payload: headers["x-amz-content-sha256"],
        crc32: headers["x-amz-checksum-crc32"],
      });
      return next(args);
    }, { step: "deserialize", name: "spy" });
    return client;
  };
  const [client, uploads] = [spied(), spied()];
  unsignedParts(uploads);
  const send = bucketParts(uploads, 800);
  const parts: PartSender = (part, signal) => {
    sent.push({ command: "UploadPart", part: part.PartNumber, bytes: part.Body.length });
    return send(part, signal);
  };
  try {
    const bytes = Uint8Array.from({ length: 12 * MiB + 12_345 }, (_, i) => (i * 7919) >> 5);
    // Odd chunks, one spanning the first part's end, one larger than a part (11 MiB from 1 MiB on).
    const cuts = [0, 100_003, MiB, 12 * MiB, 12 * MiB + 7, bytes.length];
    for (const partSize of [5 * MiB, 7 * MiB]) {
      sent.length = 0;
      const id = `parts-${partSize}`;
      const target = { client, uploads, parts, alive: () => Promise.resolve(true), Bucket: TEST_BUCKET, partSize };
      const put = bucketPut({ ...target, Key: `firmwares/${id}.xz` }, id);
      for (let i = 1; i < cuts.length; i++) await put.write(bytes.slice(cuts[i - 1], cuts[i]));
      assert.equal(await files.open(id), null, "nothing visible before finish");
      assert.deepEqual(await put.finish(), {
        size: bytes.length,
        sha256: hex("sha256", bytes),
        sha1: hex("sha1", bytes),
        md5: hex("md5", bytes),
      });
      await put.commit();
      const stored = new Uint8Array(await new Response(await files.open(id)).arrayBuffer());
      assert.ok(stored.length === bytes.length && stored.every((b, i) => b === bytes[i]), "the bytes read back");
      const partsSent = sent.filter((s) => s.command === "UploadPart");
      const sizes = partsSent.map((p) => p.bytes);
      assert.deepEqual(
        sizes,
        partSize === 5 * MiB ? [5 * MiB, 5 * MiB, 2 * MiB + 12_345] : [7 * MiB, 5 * MiB + 12_345],
      );
      assert.deepEqual(partsSent.map((p) => p.part), sizes.map((_, i) => i + 1));
      assert.deepEqual(
        sent.map((s) => s.command).filter((c) => c !== "UploadPart"),
        ["CreateMultipartUploadCommand", "CompleteMultipartUploadCommand"],
      );
      await files.remove(id);
    }
    // Smaller than a part: one PutObject.
    sent.length = 0;
    const small = bucketPut({
      client,
      uploads,
      parts,
      alive: () => Promise.resolve(true),
      Bucket: TEST_BUCKET,
      Key: "s",
      partSize: 5 * MiB,
    }, "s");
    await small.write(new Uint8Array(1000));
    assert.equal((await small.finish()).size, 1000);
    assert.deepEqual(sent.map((s) => s.command), ["PutObjectCommand"]);
  } finally {
    client.destroy();
    uploads.destroy();
  }
});

Deno.test("bucket parts: aborted mid-stream, after a part or once finished: nothing is left", async () => {
  await using bucket = await startBucket();
  const files = bucketFirmwareFiles(bucket);
  const chunk = new Uint8Array(MiB).fill(9);
  const midway = files.put();
  for (let i = 0; i < 12; i++) await midway.write(chunk); // two parts sent, the third filling
  await midway.abort();
  await midway.abort(); // idempotent
  await assert.rejects(async () => await midway.write(chunk), /bucket/);
  await assert.rejects(midway.commit(), /aborted/);
  const finished = files.put();
  for (let i = 0; i < 6; i++) await finished.write(chunk);
  await finished.finish();
  assert.equal((await bucket.keys()).length, 1);
  await finished.abort();
  assert.deepEqual(await bucket.keys(), []);
});

Deno.test("bucket parts: a check is lent the part buffers' bytes in order, the first at once; no lent byte changes before its lend settles", async () => {
  await using bucket = await startBucket();
  const files = bucketFirmwareFiles(bucket);
  // Random: a part refilled too early would differ from the part before it at the same offsets.
  const bytes = new Uint8Array(17 * MiB + 4_321);
  for (let off = 0; off < bytes.length; off += 65_536) crypto.getRandomValues(bytes.subarray(off, off + 65_536));
  for (const chunkBytes of [300_000, 3 * MiB + 1]) {
    const lends: { view: Uint8Array; copy: Uint8Array }[] = [];
    const changed: number[] = [];
    let handedOver = false;
    let settled = 0;
    const put = files.put();
    put.lendTo!({
      handOver: () => void (handedOver = true),
      // Each lend settles 300 ms later (a reader slower than a part's send): its bytes are then compared with what
      // they were when lent.
      lend: (view) => {
        const lend = { view, copy: view.slice() };
        lends.push(lend);
        return new Promise((resolve) =>
          setTimeout(() => {
            if (!lend.view.every((b, i) => b === lend.copy[i])) changed.push(lends.indexOf(lend));
            settled++;
            resolve();
          }, 300)
        );
      },
    });
    assert.ok(handedOver, "handed over before the first byte");
    for (let off = 0; off < bytes.length; off += chunkBytes) {
      await put.write(bytes.slice(off, off + chunkBytes));
      if (off === 0) assert.equal(lends.length, 1, "the first chunk lent at once");
    }
    const finishing = put.finish();
    const lentBeforeFinish = lends.reduce((n, l) => n + l.view.length, 0);
    assert.equal(lentBeforeFinish, bytes.length, "every byte lent when finish() returns to its caller");
    await finishing;
    await new Promise((r) => setTimeout(r, 320));
    assert.equal(settled, lends.length);
    assert.deepEqual(changed, [], "no lent byte was changed before its lend settled");
    const all = new Uint8Array(bytes.length);
    let at = 0;
    for (const { copy } of lends) all.set(copy, (at += copy.length) - copy.length);
    assert.ok(all.every((b, i) => b === bytes[i]), "the lends are the file, in order");
    assert.ok(lends.slice(1, -1).every((l) => l.view.length <= 5 * MiB), "no lend crosses a part");
    await put.commit();
    const stored = new Uint8Array(await new Response(await files.open(put.id)).arrayBuffer());
    assert.ok(stored.length === bytes.length && stored.every((b, i) => b === bytes[i]), "the object is the file");
    await files.remove(put.id);
  }
});

const PART_HEAD = /PUT [^ ]*[?&]partNumber=(\d+)[^\r]* HTTP\/1\.1\r\n[^]*?\r\n\r\n/g;

/** A TCP relay to `target` that counts its connections and the requests asking `Expect: 100-continue`. */
function countingRelay(target: string) {
  const { hostname, port } = new URL(target);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const relays: Promise<unknown>[] = [];
  const latin1 = new TextDecoder("latin1");
  const seen = { connections: 0, expects: 0 };
  /** The head of each part's request (by part number), as it went on the wire. */
  const partHeads = new Map<number, string>();
  const accepting = (async () => {
    for await (const conn of listener) {
      seen.connections++;
      const upstream = await Deno.connect({ hostname, port: Number(port) });
      open.add(conn).add(upstream);
      let recent = ""; // a head split across two reads is found whole in the next
      const scan = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          const text = latin1.decode(chunk);
          seen.expects += text.match(/\r\nexpect:\s*100-continue\r\n/gi)?.length ?? 0;
          // A head is at most a few KiB: looked for where it may start, the end of the last read, and this one's start.
          for (const m of (recent + text.slice(0, 8192)).matchAll(PART_HEAD)) partHeads.set(Number(m[1]), m[0]);
          recent = (recent + text).slice(-8192);
          out.enqueue(chunk);
        },
      });
      relays.push(
        conn.readable.pipeThrough(scan).pipeTo(upstream.writable).catch(() => {}),
        upstream.readable.pipeTo(conn.writable).catch(() => {}),
      );
    }
  })();
  return {
    endpoint: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    seen,
    partHeads,
    async close() {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* closed by its relay */ }
      }
      await Promise.all(relays);
    },
  };
}

Deno.test("bucket parts: sent without Expect: 100-continue, on kept-alive connections (not one per part)", async () => {
  await using bucket = await startBucket();
  bucketFirmwareFiles(bucket); // the bucket's credentials into the environment
  const relay = countingRelay(bucket.endpoint);
  try {
    const files = s3FirmwareFiles({
      bucket: TEST_BUCKET,
      endpoint: relay.endpoint,
      prefix: "",
      forcePathStyle: true,
      region: "us-east-1",
    });
    const bytes = Uint8Array.from({ length: 23 * MiB }, (_, i) => (i * 31) ^ (i >> 16));
    const put = files.put("kept-alive");
    for (let at = 0; at < bytes.length; at += MiB) await put.write(bytes.subarray(at, at + MiB));
    assert.equal((await put.finish()).sha256, hex("sha256", bytes));
    await put.commit();
    console.log(`  ${relay.seen.connections} connections for 5 parts and the requests around them`);
    assert.equal(relay.seen.expects, 0, "no request waits for 100 Continue");
    assert.ok(relay.seen.connections <= 3, `${relay.seen.connections} connections for 5 parts`);
    // Each part as the SDK would send it: payload unsigned, its CRC32 in a signed header (s3rver checked the signature).
    assert.deepEqual([...relay.partHeads.keys()].sort(), [1, 2, 3, 4, 5]);
    for (const [n, head] of relay.partHeads) {
      const part = bytes.subarray((n - 1) * 5 * MiB, n * 5 * MiB);
      const crc = crc32(part) >>> 0;
      const b64 = btoa(String.fromCharCode(crc >>> 24, (crc >>> 16) & 255, (crc >>> 8) & 255, crc & 255));
      const header = (name: string) => new RegExp(`\r\n${name}: ([^\r]*)`, "i").exec(head)?.[1];
      assert.equal(header("x-amz-content-sha256"), "UNSIGNED-PAYLOAD", `part ${n}`);
      assert.equal(header("x-amz-checksum-crc32"), b64, `part ${n}'s CRC32`);
      assert.equal(header("content-length"), String(part.length));
      assert.match(header("authorization") ?? "", /SignedHeaders=[^,]*x-amz-checksum-crc32/);
      assert.equal(header("expect"), undefined);
    }
    await files.remove("kept-alive");
  } finally {
    await relay.close();
  }
});
