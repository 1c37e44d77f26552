/**
 * One firmware file streamed into the bucket as a multipart upload: the chunks are hashed and copied into a part
 * buffer; a full part is sent (bucket_parts.ts: signed by the SDK's signer, sent on Deno's own connections) while the
 * next one fills the other buffer, and the two buffers are reused for the whole upload, so its memory is two parts
 * whatever the file's size (docs/DECISIONS.md, "Bucket uploads without lib-storage"). Creating, completing and
 * aborting the upload, and a file smaller than one part (one PutObject), go through the SDK. Nothing is visible under
 * the key until finish() resolves; abort() drops the parts (or the object, once finished).
 */
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { ObjectUrl, PartSender } from "./bucket_parts.ts";
import { assemblyAllowanceMs, asUnavailable, unavailable, watched } from "./bucket_watch.ts";
import type { FirmwarePut } from "./firmware_files.ts";
import type { LentInput } from "./stream_check.ts";
import { fileHashes } from "./file_hashes.ts";

const MiB = 1 << 20;
/** S3's smallest part (but the last) and its most parts in one upload. */
const MIN_PART = 5 * MiB;
const MAX_PARTS = 10_000;
/** As lib-storage sent them (the SDK's default): a CRC32 of each part, checked by the store. */
const ChecksumAlgorithm = "CRC32";
/** Bytes gathered in the part buffer before they are lent to the content check in one write (xz's batch). */
const LEND_BYTES = 1 << 20;

/**
 * Every part's size (the last may be smaller): the smallest whole MiB that holds `maxBytes` in S3's 10,000 parts, and
 * at least S3's 5 MiB. One size for all parts, because some S3-compatible stores (Cloudflare R2) accept nothing else.
 */
export function partSizeFor(maxBytes = 0): number {
  return Math.max(MIN_PART, Math.ceil(maxBytes / MAX_PARTS / MiB) * MiB);
}

/**
 * A part's bytes are covered by its CRC32 (x-amz-checksum-crc32, which the signature covers and the store verifies),
 * not hashed again for the signature: SigV4's sha256 of every part cost ~0.5 s of CPU per GiB, the CRC32 ~0
 * (docs/DECISIONS.md, "Bucket uploads without lib-storage").
 */
export function unsignedParts(uploads: S3Client): void {
  uploads.middlewareStack.add((next, context) => (args) => {
    if (context.commandName === "UploadPartCommand" || context.commandName === "PutObjectCommand") {
      (args.request as { headers: Record<string, string> }).headers["x-amz-content-sha256"] = "UNSIGNED-PAYLOAD";
    }
    return next(args);
  }, { step: "build", name: "unsignedParts" });
}

export interface PutTarget {
  /** Requests bounded in time (CreateMultipartUpload, the DeleteObject of an aborted finished put). */
  client: S3Client;
  /** Requests that carry bytes, wait for the object's assembly or clean up in the background: not bounded in time. */
  uploads: S3Client;
  /** Sends a part (bucket_parts.ts: signed by the SDK's signer, without its pipeline; not bounded in time). */
  parts: PartSender;
  /** Whether the bucket answers (bucket_watch.ts watched()). */
  alive: () => Promise<boolean>;
  Bucket: string;
  Key: string;
  partSize: number;
}

export function bucketPut(target: PutTarget, id: string): FirmwarePut {
  const { client, uploads, parts: sendPart, alive, Bucket, Key, partSize } = target;
  const hashes = fileHashes();
  /** Ends every request of this put (a bucket that stopped answering, an abort). */
  const cancel = new AbortController();
  const sendOptions = { abortSignal: cancel.signal };
  let size = 0;
  /** The part being filled, and the other buffer once its part is stored. */
  let part = new Uint8Array(partSize);
  let filled = 0;
  let free: Uint8Array<ArrayBuffer> | null = null;
  /** The multipart upload's id and the object's URL, once the first part is full (undefined when its creation failed). */
  let created: Promise<{ UploadId: string; url: ObjectUrl } | undefined> | null = null;
  const parts: CompletedPart[] = [];
  let partCount = 0;
  /** The part in flight; never rejects (a failure is kept in `failure`). */
  let sending: Promise<void> | null = null;
  let failure: unknown = null;
  /** Once CompleteMultipartUpload is sent, until when the bucket may be silent while it assembles the object. */
  let assemblingUntil: number | undefined;
  /** The object was asked for (PutObject or CompleteMultipartUpload): an abort removes what the bucket may have made. */
  let objectAsked = false;
  let state: "open" | "finished" | "committed" | "aborted" = "open";
  /** The content check that reads the bytes from the part buffers (lendTo), how much of the filling part it was lent,
   * and its last lend of that part: the buffer is filled again only once that lend settled. */
  let check: LentInput | null = null;
  let lentTo = 0;
  let lending: Promise<void> | null = null;

  const fail = (err: unknown) => void (failure ??= err);
  const stop = () => cancel.abort();
  /** `wait` under the bucket's watch; a failure of this put (kept or new) rejects as FilesUnavailableError. */
  const waitFor = async <T>(wait: Promise<T>, assembling?: () => number | undefined): Promise<T> => {
    const value = await watched(wait, alive, stop, assembling).catch(unavailable);
    if (failure) unavailable(failure);
    return value;
  };

  /** CreateMultipartUpload through the SDK, which also gives the object's URL for the parts (its resolved request). */
  const createUpload = () => {
    const command = new CreateMultipartUploadCommand({ Bucket, Key, ChecksumAlgorithm });
    let url: ObjectUrl | undefined;
    command.middlewareStack.add((next) => (args) => {
      const { protocol, hostname, port, path } = args.request as ObjectUrl;
      url = { protocol: protocol.endsWith(":") ? protocol : `${protocol}:`, hostname, port, path };
      return next(args);
    }, { step: "finalizeRequest", name: "objectUrl" });
    return client.send(command, sendOptions).then((r) => {
      if (!r.UploadId || !url) throw new Error("the bucket answered CreateMultipartUpload without an UploadId");
      return { UploadId: r.UploadId, url };
    }).catch((err) => void fail(err));
  };

  /** Lends the check the filling part's bytes up to `end` (in order: each byte once). */
  const lendUpTo = (end: number) => {
    if (!check || end <= lentTo) return;
    lending = check.lend(part.subarray(lentTo, end));
    lentTo = end;
  };

  /** Sends the filled part (nothing in flight); the other buffer becomes the one filled. */
  const flush = () => {
    lendUpTo(filled);
    const lent = lending;
    lending = null;
    lentTo = 0;
    const body = filled === partSize ? part : part.subarray(0, filled);
    const PartNumber = ++partCount;
    created ??= createUpload();
    const buffer = part;
    part = free ?? new Uint8Array(partSize);
    free = null;
    filled = 0;
    sending = created.then((upload) => {
      if (upload === undefined || failure) return;
      return sendPart({ ...upload, PartNumber, Body: body }, cancel.signal).then(async (part) => {
        parts.push(part);
        await lent;
        free = buffer;
      });
    }).catch(fail).finally(() => sending = null);
  };

  /** Copies `chunk` from `from` into parts, sending each full one; waits when a full part finds one in flight. */
  const take = (chunk: Uint8Array, from: number): Promise<void> | null => {
    for (;;) {
      const n = Math.min(chunk.length - from, partSize - filled);
      part.set(chunk.subarray(from, from + n), filled);
      filled += n;
      from += n;
      // The file's first bytes at once (a file that is not xz is refused without waiting), then 1 MiB at a time.
      if (check && (filled - lentTo >= LEND_BYTES || (partCount === 0 && lentTo === 0))) lendUpTo(filled);
      if (filled < partSize) return null;
      if (sending) {
        return waitFor(sending).then(() => {
          flush();
          return take(chunk, from) ?? undefined;
        });
      }
      flush();
      if (from === chunk.length) return null;
    }
  };

  const release = () => {
    part = new Uint8Array(0);
    free = null;
  };

  /** In the background, once the part in flight has settled: the parts dropped, and an object completed meanwhile. */
  const dropParts = () => {
    const completing = objectAsked;
    void (async () => {
      await sending;
      const UploadId = (await created)?.UploadId;
      // Through `uploads` (no time limit): a frozen bucket gets these once it answers again.
      if (UploadId) await uploads.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {});
      if (completing) await uploads.send(new DeleteObjectCommand({ Bucket, Key })).catch(() => {});
    })();
  };

  return {
    id,
    copies: true, // into the part buffer; a wait (a part in flight) resolves once the rest is copied
    lendTo(input) {
      check = input;
      input.handOver();
    },
    write(chunk) {
      if (failure) return Promise.reject(asUnavailable(failure));
      hashes.update(chunk);
      size += chunk.length;
      return take(chunk, 0);
    },
    async finish() {
      lendUpTo(filled); // the check's last bytes before it is finished (the caller finishes it next)
      if (failure) unavailable(failure);
      if (sending) await waitFor(sending);
      if (created === null) {
        // Smaller than one part: one request.
        const Body = part.subarray(0, filled);
        objectAsked = true;
        await waitFor(
          uploads.send(
            new PutObjectCommand({ Bucket, Key, Body, ContentLength: filled, ChecksumAlgorithm }),
            sendOptions,
          ),
        );
      } else {
        if (filled > 0) flush();
        if (sending) await waitFor(sending);
        const UploadId = (await created)?.UploadId;
        if (failure || UploadId === undefined) unavailable(failure);
        objectAsked = true;
        assemblingUntil = performance.now() + assemblyAllowanceMs(size);
        await waitFor(
          uploads.send(
            new CompleteMultipartUploadCommand({
              Bucket,
              Key,
              UploadId,
              MultipartUpload: { Parts: parts.sort((a, b) => a.PartNumber! - b.PartNumber!) },
            }),
            sendOptions,
          ),
          () => assemblingUntil,
        );
      }
      release();
      state = "finished";
      return { size, ...hashes.digest() };
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
      if (was === "finished") {
        return await client.send(new DeleteObjectCommand({ Bucket, Key })).then(() => {}, () => {});
      }
      fail(new Error("aborted"));
      stop();
      release();
      await sending;
      dropParts();
    },
  };
}
