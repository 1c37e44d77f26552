/**
 * A multipart upload's parts sent without the S3 SDK's request pipeline: each UploadPart is signed by the SDK's own
 * SigV4 signer (@smithy/signature-v4, with the uploads client's credentials, region and clock offset) and sent on
 * Deno's own kept-alive connections (part_connections.ts); its answer read here. The SDK's middleware and node:http
 * cost ~0.45 s of CPU per GiB more in 5 MiB parts (docs/DECISIONS.md, "Bucket parts without the SDK's pipeline").
 * Every other request of a put (create, complete, abort, a small file's PutObject) still goes through the SDK.
 *
 * The request is what the SDK sends for UploadPartCommand with `ChecksumAlgorithm: "CRC32"` and an unsigned payload
 * (bucket_put.ts unsignedParts): `x-amz-content-sha256: UNSIGNED-PAYLOAD`, the part's CRC32 in `x-amz-checksum-crc32`
 * (signed, verified by the store). Its URL is the object's, as the SDK resolved it for the upload's
 * CreateMultipartUpload (path or virtual-host style, any endpoint), with `partNumber` and `uploadId`. As the SDK does,
 * a failure of the network or the store (5xx, 429, SlowDown) is tried once more, and a RequestTimeTooSkewed answer
 * corrects the clock offset from the answer's Date and is tried again.
 */
import { crc32 } from "node:zlib";
import { type CompletedPart, type S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { SignatureV4 } from "@smithy/signature-v4";
import { type Answer, ConnectionError, partConnections } from "./part_connections.ts";

/** Where the object is, as the SDK sent its CreateMultipartUpload (its request after endpoint resolution). */
export interface ObjectUrl {
  protocol: string;
  hostname: string;
  port?: number;
  /** Already escaped by the SDK's serializer. */
  path: string;
}

export interface PartRequest {
  url: ObjectUrl;
  UploadId: string;
  PartNumber: number;
  Body: Uint8Array;
}

/** Sends one part; resolves with what CompleteMultipartUpload needs of it. */
export type PartSender = (part: PartRequest, signal: AbortSignal) => Promise<CompletedPart>;

/** As the SDK's standard retry strategy: a second attempt after a network failure, a 5xx, a 429 or a throttle. */
const ATTEMPTS = 2;
const RETRY_DELAY_MS = 100;
/** Of an error answer's body: enough for S3's XML error document. */
const ERROR_BODY_BYTES = 64 * 1024;

/** RFC 3986's escaping as SigV4 canonicalises a query (the SDK's escapeUri). */
const escape = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const base64Crc32 = (bytes: Uint8Array) => {
  const value = crc32(bytes) >>> 0;
  return btoa(String.fromCharCode(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff));
};

/** S3's answer as the SDK would throw it: its error code as the name (asUnavailable says both). */
function answerError(answer: Answer): S3ServiceException {
  const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(answer.body)?.[1];
  const name = tag("Code") ?? (answer.status === 503 ? "ServiceUnavailable" : `HTTP ${answer.status}`);
  return new S3ServiceException({
    name,
    $fault: answer.status >= 500 ? "server" : "client",
    $metadata: { httpStatusCode: answer.status, requestId: String(answer.headers["x-amz-request-id"] ?? "") },
    message: tag("Message") ?? `The bucket answered ${answer.status} to a part's upload.`,
  });
}

const retriable = (answer: Answer) =>
  answer.status >= 500 || answer.status === 429 || /<Code>SlowDown</.test(answer.body);

/**
 * The part sender of one bucket client (`uploads`: its credentials, region and clock offset); `connectMs` bounds a new
 * connection as the SDK's handler does. Connections are kept alive and shared by every put of the server.
 */
export function bucketParts(uploads: S3Client, connectMs: number): PartSender {
  const connections = partConnections(connectMs, ERROR_BODY_BYTES);
  const config = uploads.config as unknown as {
    region: () => Promise<string>;
    credentials: ConstructorParameters<typeof SignatureV4>[0]["credentials"];
    sha256: ConstructorParameters<typeof SignatureV4>[0]["sha256"];
    systemClockOffset?: number;
  };
  /** The bucket's clock minus ours, as the SDK keeps it; corrected from a RequestTimeTooSkewed answer's Date. */
  let clockOffset = config.systemClockOffset ?? 0;
  let signer: Promise<SignatureV4> | null = null;
  const signerOf = () =>
    signer ??= config.region().then((region) =>
      new SignatureV4({
        service: "s3",
        region,
        credentials: config.credentials,
        sha256: config.sha256,
        uriEscapePath: false, // S3 signs the path as sent, not escaped twice
        applyChecksum: false,
      })
    );
  signerOf().catch(() => signer = null); // a region provider that failed is asked again

  /** One attempt: the signed request, its whole body written, the answer read. */
  const attempt = async ({ url, UploadId, PartNumber, Body }: PartRequest, checksum: string, signal: AbortSignal) => {
    const query = { partNumber: String(PartNumber), uploadId: UploadId };
    const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
    const signed = await (await signerOf()).sign({
      method: "PUT",
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: url.path,
      query,
      headers: {
        host,
        "content-length": String(Body.length),
        "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
        "x-amz-checksum-crc32": checksum,
        "x-amz-sdk-checksum-algorithm": "CRC32",
      },
    }, { signingDate: new Date(Date.now() + clockOffset) });
    const head = [
      `PUT ${url.path}?partNumber=${PartNumber}&uploadId=${escape(UploadId)} HTTP/1.1`,
      ...Object.entries(signed.headers).map(([name, value]) => `${name}: ${value}`),
    ].join("\r\n");
    return await connections.request(url, head, Body, signal);
  };

  return async (part, signal) => {
    const checksum = base64Crc32(part.Body);
    let stale = false;
    for (let n = 1;; n++) {
      let answer: Answer;
      try {
        answer = await attempt(part, checksum, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        // A kept-alive connection the store had closed meanwhile: sent again on a new one, not counted as an attempt.
        if (err instanceof ConnectionError && err.reused && !stale) {
          stale = true;
          n--;
          continue;
        }
        if (n >= ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
        continue;
      }
      if (answer.status === 200) {
        const ETag = answer.headers.etag;
        if (!ETag) throw new Error(`the bucket answered part ${part.PartNumber} without an ETag`);
        const crc = answer.headers["x-amz-checksum-crc32"];
        return { PartNumber: part.PartNumber, ETag, ...(typeof crc === "string" && { ChecksumCRC32: crc }) };
      }
      const serverTime = Date.parse(String(answer.headers.date ?? ""));
      const skewed = /<Code>RequestTimeTooSkewed</.test(answer.body) && Number.isFinite(serverTime);
      if (skewed) clockOffset = serverTime - Date.now();
      if (n >= ATTEMPTS || !(retriable(answer) || skewed)) throw answerError(answer);
      await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
    }
  };
}
