/**
 * Firmware files in an S3-compatible bucket (docs/REQUIREMENTS.md §10): `<S3_PREFIX>firmwares/<id>.xz`. A put streams into a
 * multipart upload sent part by part (bucket_put.ts: two part buffers reused, one part in flight while the next fills),
 * hashed on the way; the object is complete when finish() resolves and the firmware row is inserted after it. An object
 * without a row (a crash between the two) is removed by the sweep once older than an hour, so that an upload on another
 * replica is never caught between its object and its row. Why these choices: docs/DECISIONS.md, "Firmware in a bucket"
 * and "Bucket uploads without lib-storage".
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { newId } from "../../shared/ids.ts";
import { attachmentDisposition } from "./attachment.ts";
import { bucketParts } from "./bucket_parts.ts";
import { bucketPut, partSizeFor, unsignedParts } from "./bucket_put.ts";
import { S3_TIMEOUTS, unavailable, watched } from "./bucket_watch.ts";
import type { FirmwareFiles } from "./firmware_files.ts";

export interface S3Settings {
  bucket: string;
  endpoint?: string;
  prefix: string;
  forcePathStyle: boolean;
  region: string;
  /** The sweep never removes an object younger than this (default an hour: other replicas upload meanwhile). */
  minSweepGraceMs?: number;
  /** The largest file a put may receive (MAX_FIRMWARE_BYTES): sets the part size (bucket_put.ts partSizeFor). */
  maxObjectBytes?: number;
}

const MIN_SWEEP_GRACE_MS = 60 * 60 * 1000;

const EXTENSION = ".xz";

export { S3_TIMEOUTS } from "./bucket_watch.ts";

/**
 * An object's body whose every read waits for the bucket under watched(): a bucket that dies or freezes mid-download
 * cuts the download, never holds it. The reader's own pace is not bounded: nothing is asked of the bucket until the
 * reader asks.
 */
function watchedBody(body: ReadableStream<Uint8Array>, alive: () => Promise<boolean>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await watched(reader.read(), alive, () => void reader.cancel().catch(() => {}));
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

export function s3FirmwareFiles(settings: S3Settings): FirmwareFiles {
  const common = { region: settings.region, endpoint: settings.endpoint, forcePathStyle: settings.forcePathStyle };
  // A bucket down, gone or frozen answers 503 within 2 s (docs/REQUIREMENTS.md §19), never hangs a request. Two attempts of
  // at most S3_TIMEOUTS.answerMs until the answer's headers; a download's body then flows at the client's pace.
  const client = new S3Client({
    ...common,
    maxAttempts: 2,
    requestHandler: {
      connectionTimeout: S3_TIMEOUTS.connectMs,
      requestTimeout: S3_TIMEOUTS.answerMs,
      throwOnRequestTimeout: true,
    },
  });
  // A part's upload takes as long as its bytes take on the link: not bounded by time, but watched (watched()).
  // No `Expect: 100-continue` on its bodies (the SDK's default above 2 MB): with it, the SDK's Node handler sends each
  // part on a connection of its own (keep-alive off), so every 5 MiB part paid a new TCP (and TLS) connection and its
  // slow start (docs/DECISIONS.md, "Bucket uploads near the hashing floor").
  const uploads = new S3Client({
    ...common,
    maxAttempts: 2,
    requestHandler: { connectionTimeout: S3_TIMEOUTS.connectMs },
    expectContinueHeader: false,
  });
  unsignedParts(uploads);
  const parts = bucketParts(uploads, S3_TIMEOUTS.connectMs);
  const Bucket = settings.bucket;
  /** Whether the bucket answers a HeadBucket within S3_TIMEOUTS.probeMs. */
  const alive = () =>
    client.send(new HeadBucketCommand({ Bucket }), { abortSignal: AbortSignal.timeout(S3_TIMEOUTS.probeMs) })
      .then(() => true, () => false);
  const dir = `${settings.prefix}firmwares/`;
  const keyOf = (id: string) => `${dir}${id}${EXTENSION}`;
  const partSize = partSizeFor(settings.maxObjectBytes);

  /** Every object under the firmware prefix: key relative to it, and when it was written. */
  async function* objects(): AsyncGenerator<{ name: string; modified: number }> {
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: dir, ContinuationToken }))
        .catch(unavailable);
      for (const o of page.Contents ?? []) {
        if (o.Key) yield { name: o.Key.slice(dir.length), modified: o.LastModified?.getTime() ?? 0 };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  const removeKey = (Key: string) => client.send(new DeleteObjectCommand({ Bucket, Key })).then(() => {}, unavailable);

  return {
    put: (id = newId()) => bucketPut({ client, uploads, parts, alive, Bucket, Key: keyOf(id), partSize }, id),

    async open(id, range) {
      try {
        const res = await client.send(
          new GetObjectCommand({ Bucket, Key: keyOf(id), Range: range && `bytes=${range.start}-${range.end}` }),
        );
        return watchedBody(res.Body!.transformToWebStream() as ReadableStream<Uint8Array>, alive);
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === "NoSuchKey") return null;
        unavailable(err);
      }
    },

    remove: (id) => removeKey(keyOf(id)),

    async list() {
      const ids: string[] = [];
      for await (const o of objects()) if (o.name.endsWith(EXTENSION)) ids.push(o.name.slice(0, -EXTENSION.length));
      return ids.sort();
    },

    async sweep(ids, { graceMs = 0 } = {}) {
      const expected = new Set(ids.map((id) => `${id}${EXTENSION}`));
      const before = Date.now() - Math.max(graceMs, settings.minSweepGraceMs ?? MIN_SWEEP_GRACE_MS);
      const removed: string[] = [];
      for await (const o of objects()) {
        if (expected.delete(o.name) || o.modified > before) continue;
        await removeKey(`${dir}${o.name}`);
        removed.push(o.name);
      }
      return { removed: removed.sort(), missing: [...expected].map((n) => n.slice(0, -EXTENSION.length)).sort() };
    },

    downloadUrl: (id, name, ttlSeconds) =>
      getSignedUrl(
        client,
        new GetObjectCommand({ Bucket, Key: keyOf(id), ResponseContentDisposition: attachmentDisposition(name) }),
        { expiresIn: ttlSeconds },
      ).catch(unavailable),

    check: () => client.send(new HeadBucketCommand({ Bucket })).then(() => {}, unavailable),
  };
}
