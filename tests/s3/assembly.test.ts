/**
 * A healthy bucket never yields 503 (docs/REQUIREMENTS.md §19), even one that is silent while it assembles an upload: some stores
 * copy the whole object at CompleteMultipartUpload and answer nothing else meanwhile (s3rver: ~7 ms per MiB, a 768 MiB
 * upload was taken for a frozen bucket). A TCP proxy in front of s3rver holds every answer for HOLD_MS from the moment
 * the completion is asked for (the server's HeadBucket questions included): the upload is stored, not refused. A bucket
 * that stops answering while parts flow is still a 503 within 2 s (tests/s3/fault.test.ts).
 */
import assert from "node:assert/strict";
import { startBucket } from "../../testing/s3.ts";
import { startServer } from "../../testing/server.ts";
import { bytesSource } from "../../testing/files.ts";
import { xzOfSize } from "../../testing/xz_fixtures.ts";
import { tcpRelay } from "../../testing/tcp_relay.ts";

const HOLD_MS = 4_000;

/** Passes bytes both ways; once a CompleteMultipartUpload request goes through, holds every answer for HOLD_MS. */
function assemblingSilently(target: string) {
  let holdUntil = 0;
  let completions = 0;
  const latin1 = new TextDecoder("latin1");
  const relay = tcpRelay(target, () => ({
    up: (chunk) => {
      // A request's line at the start of a chunk: `POST /<bucket>/<key>?uploadId=…` completes a multipart upload.
      if (/^POST [^ ]*[?&]uploadId=/.test(latin1.decode(chunk.subarray(0, 512)))) {
        completions++;
        holdUntil = performance.now() + HOLD_MS;
      }
    },
    down: async () => {
      const wait = holdUntil - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    },
  }));
  return Object.assign(relay, { completions: () => completions });
}

Deno.test("a bucket silent for 4 s while it assembles an upload: stored, not taken for a frozen one", async () => {
  await using bucket = await startBucket();
  await using proxy = assemblingSilently(bucket.endpoint);
  await using srv = await startServer({ bucket, env: { S3_ENDPOINT: proxy.url } });
  const api = await srv.login();
  const started = performance.now();
  const fw = await api.uploadFirmware(bytesSource("assembled.xz", xzOfSize(12 << 20)));
  const ms = performance.now() - started;
  console.log(`12 MiB upload, its assembly held ${HOLD_MS} ms: stored after ${ms.toFixed(0)} ms`);
  assert.equal(proxy.completions(), 1);
  assert.ok(ms >= HOLD_MS, "the completion was held");
  assert.deepEqual(await srv.storedFirmwares(), [`${fw._id}.xz`]);
  assert.doesNotMatch(srv.output(), / 50[03] /);
});
