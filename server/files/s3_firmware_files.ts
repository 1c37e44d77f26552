/**
 * Firmware files in an S3-compatible bucket (docs/REQUIREMENTS.md §10): `<S3_PREFIX>firmwares/<id>.xz`. A put streams into a
 * multipart upload (lib-storage's Upload: parts of 5 MiB, one in flight), hashed on the way; the object is
 * complete when finish() resolves and the firmware row is inserted after it. An object without a row (a crash between
 * the two) is removed by the sweep once older than an hour, so that an upload on another replica is never caught
 * between its object and its row. Why these choices: docs/DECISIONS.md, "Firmware in a bucket".
 */
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { createHash } from "node:crypto";
import { newId } from "../../shared/ids.ts";
import { attachmentDisposition } from "./attachment.ts";
import { FilesUnavailableError, type FirmwareFiles, type FirmwarePut } from "./firmware_files.ts";

export interface S3Settings {
  bucket: string;
  endpoint?: string;
  prefix: string;
  forcePathStyle: boolean;
  region: string;
  /** The sweep never removes an object younger than this (default an hour: other replicas upload meanwhile). */
  minSweepGraceMs?: number;
}

/** Bytes queued for the multipart upload before write() makes the upload wait. */
const WINDOW = 2 << 20;
/** S3's smallest part (but the last). */
const PART_SIZE = 5 << 20;
const MIN_SWEEP_GRACE_MS = 60 * 60 * 1000;

/** How long the bucket may take (docs/SCALING.md, "When PostgreSQL is unreachable, stopped or frozen"). */
export const S3_TIMEOUTS = {
  /** A new connection. */
  connectMs: 800,
  /** A request until its answer's headers (each of two attempts). */
  answerMs: 800,
  /** A part's upload, or a download's next bytes, waited for this long makes the server ask whether the bucket is alive. */
  suspectMs: 700,
  /**
   * How long the bucket has to answer that question (a HeadBucket) before the transfer fails as unavailable: with
   * suspectMs, under the 2 s of docs/REQUIREMENTS.md §19. A healthy bucket busy writing parts (s3rver on a loaded 2-core machine)
   * answered a HeadBucket in over 0.8 s, so the question gets all of the rest.
   */
  probeMs: 1200,
};
const EXTENSION = ".xz";

/**
 * Any failure of the bucket (unreachable, a timeout, its 5xx, and also a refusal such as AccessDenied or NoSuchBucket,
 * which only the operator can fix) is 503: the request changed nothing and can be retried.
 */
const gc = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;
const COLLECT_EVERY_BYTES = 8 << 20;
let sinceCollected = 0;

/**
 * The parts of a multipart upload (5 MiB buffers the SDK assembles and sends) outlive a young-generation collection,
 * so V8 frees them only at a full one, which it runs late: a 256 MiB upload grew the server by ~150 MiB. Where `gc`
 * is exposed (the server runs with --expose-gc) a full collection every 8 MiB streamed keeps it bounded: a 1 GiB upload
 * peaked at 215 MiB with two parts in flight, an 8 MiB window and a collection every 32 MiB, at 151 MiB now.
 */
function collectParts(bytes: number): void {
  sinceCollected += bytes;
  if (gc && sinceCollected >= COLLECT_EVERY_BYTES) {
    sinceCollected = 0;
    gc({ type: "major" });
  }
}

function asUnavailable(err: unknown): Error {
  if (err instanceof FilesUnavailableError) return err;
  const why = err instanceof S3ServiceException
    ? `${err.name}: ${err.message}`
    : err instanceof Error
    ? err.message
    : err;
  return new FilesUnavailableError(`The firmware store (bucket) cannot be used: ${why}`);
}

function unavailable(err: unknown): never {
  throw asUnavailable(err);
}

/**
 * `wait`, unless the bucket stops answering meanwhile: after S3_TIMEOUTS.suspectMs of waiting, and again after each
 * answer, `alive()` asks it; no answer within S3_TIMEOUTS.probeMs and `dead()` runs and this rejects with
 * FilesUnavailableError. A bucket that answers is only slow: the wait goes on. (A frozen bucket is silent the way a
 * busy one is, for a moment; only the question tells them apart: docs/DECISIONS.md, "Stores fail fast".)
 */
async function watched<T>(wait: Promise<T>, alive: () => Promise<boolean>, dead: () => void): Promise<T> {
  const settled = wait.then((value) => ({ value }));
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const quiet = new Promise<"quiet">((resolve) => timer = setTimeout(() => resolve("quiet"), S3_TIMEOUTS.suspectMs));
    const first = await Promise.race([settled, quiet]).finally(() => clearTimeout(timer));
    if (first !== "quiet") return first.value;
    const answer = await Promise.race([settled, alive()]);
    if (answer === false) {
      dead();
      settled.catch(() => {});
      throw asUnavailable(
        new Error(`it did not answer within ${(S3_TIMEOUTS.suspectMs + S3_TIMEOUTS.probeMs) / 1000} s`),
      );
    }
    if (answer !== true) return answer.value;
  }
}

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
  // A part's upload takes as long as its 5 MiB take on the link: not bounded by time, but watched (watched()).
  const uploads = new S3Client({
    ...common,
    maxAttempts: 2,
    requestHandler: { connectionTimeout: S3_TIMEOUTS.connectMs },
  });
  const Bucket = settings.bucket;
  /** Whether the bucket answers a HeadBucket within S3_TIMEOUTS.probeMs. */
  const alive = () =>
    client.send(new HeadBucketCommand({ Bucket }), { abortSignal: AbortSignal.timeout(S3_TIMEOUTS.probeMs) })
      .then(() => true, () => false);
  const dir = `${settings.prefix}firmwares/`;
  const keyOf = (id: string) => `${dir}${id}${EXTENSION}`;

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

  /**
   * Aborts a multipart upload (its parts are dropped) once its part in flight has settled, in the background: the
   * answer does not wait for a bucket that may be gone. A store that is gone or lacks AbortMultipartUpload keeps them
   * until its lifecycle rule for incomplete uploads runs (docs/SCALING.md).
   */
  const dropParts = (upload: Upload, Key: string) => {
    // lib-storage keeps these private; it has no call that aborts without the first failure's round trip.
    const inner = upload as unknown as { uploadId?: string; concurrentUploaders?: Promise<unknown>[] };
    void Promise.allSettled(inner.concurrentUploaders ?? []).then(() => {
      if (!inner.uploadId) return;
      return uploads.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: inner.uploadId }));
    }).catch(() => {});
  };

  return {
    put(id = newId()): FirmwarePut {
      const hashes = [createHash("sha256"), createHash("sha1"), createHash("md5")];
      let size = 0;
      let wake: (() => void) | null = null;
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start: (c) => void (controller = c),
        pull: () => {
          wake?.();
          wake = null;
        },
      }, new ByteLengthQueuingStrategy({ highWaterMark: WINDOW }));
      // One part of 5 MiB in flight while the next fills: more only grows the garbage of finished parts (memory).
      const upload = new Upload({
        client: uploads,
        params: { Bucket, Key: keyOf(id), Body: body },
        queueSize: 1,
        partSize: PART_SIZE,
        // A failed part fails the upload at once; abort() drops the parts (lib-storage would first try that against
        // the bucket that just failed, and hold the 503 meanwhile).
        leavePartsOnError: true,
      });
      let failure: unknown = null;
      const done = upload.done().then(() => {}, (err) => {
        failure = err;
        wake?.();
      });
      let state: "open" | "finished" | "committed" | "aborted" = "open";
      /** The bucket stopped answering: the part in flight is dropped (its request ended). */
      const stop = () => void upload.abort().catch(() => {});
      return {
        id,
        write(chunk) {
          if (failure) return Promise.reject(asUnavailable(failure));
          for (const hash of hashes) hash.update(chunk);
          size += chunk.length;
          collectParts(chunk.length);
          // Not copied: each chunk is a fresh buffer of the request body, never written to again.
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) > 0) return null;
          return watched(new Promise<void>((resolve) => wake = resolve), alive, stop).then(() => {
            if (failure) unavailable(failure);
          });
        },
        async finish() {
          controller.close();
          await watched(done, alive, stop);
          if (failure) unavailable(failure);
          state = "finished";
          const [sha256, sha1, md5] = hashes.map((hash) => hash.digest("hex"));
          return { size, sha256, sha1, md5 };
        },
        commit() {
          if (state !== "finished") return Promise.reject(new Error(`This firmware file is ${state}, not finished.`));
          state = "committed";
          return Promise.resolve();
        },
        async abort() {
          if (state === "committed" || state === "aborted") return;
          const was = state;
          state = "aborted";
          if (was === "finished") return await removeKey(keyOf(id)).catch(() => {});
          try {
            controller.error(new Error("aborted"));
          } catch { /* closed already */ }
          await upload.abort().catch(() => {});
          await done;
          dropParts(upload, keyOf(id));
        },
      };
    },

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
