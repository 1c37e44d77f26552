/**
 * Audit checkpoints in the bucket (docs/REQUIREMENTS.md §17): one write-once object `<S3_PREFIX>audit/checkpoints/<count>.json`
 * per checkpoint, `{"count": n, "hash": "…", "at": "…"}`. Never overwritten: a key already there is left as it is
 * (checked first, and the PUT is conditional, If-None-Match: *, where the store supports it), so a later writer cannot
 * replace what an auditor may already hold. Set an object lock or a bucket policy that denies deletes for the prefix
 * to keep them from the console's own credentials too (docs/OPERATIONS.md).
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { AuditCheckpoint } from "../db/rules/audit.ts";
import type { S3Settings } from "./s3_firmware_files.ts";

export interface PublishedCheckpoint extends AuditCheckpoint {
  at: string;
}

export interface CheckpointObjects {
  /** Stores the checkpoint unless its key exists: "written" or "kept" (an object of that count was there). */
  put(checkpoint: PublishedCheckpoint): Promise<"written" | "kept">;
  /** Every checkpoint object, by count; `bad` names the objects that are not a checkpoint. */
  list(): Promise<{ checkpoints: PublishedCheckpoint[]; bad: string[] }>;
  /** The object's key of a count (for messages). */
  keyOf(count: number): string;
}

const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;

export function checkpointObjects(settings: Omit<S3Settings, "minSweepGraceMs">): CheckpointObjects {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 },
  });
  const Bucket = settings.bucket;
  const dir = `${settings.prefix}audit/checkpoints/`;
  const keyOf = (count: number) => `${dir}${count}.json`;

  const exists = async (Key: string) => {
    try {
      await client.send(new HeadObjectCommand({ Bucket, Key }));
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  };

  return {
    keyOf,
    async put(checkpoint) {
      const Key = keyOf(checkpoint.count);
      if (await exists(Key)) return "kept";
      try {
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: JSON.stringify(checkpoint),
            ContentType: "application/json",
            IfNoneMatch: "*",
          }),
        );
      } catch (err) {
        // 412: another replica wrote it between the check and the PUT.
        if (statusOf(err) === 412) return "kept";
        throw err;
      }
      return "written";
    },
    async list() {
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: dir, ContinuationToken }));
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      const checkpoints: PublishedCheckpoint[] = [];
      const bad: string[] = [];
      for (const Key of keys) {
        const res = await client.send(new GetObjectCommand({ Bucket, Key }));
        const text = await res.Body!.transformToString();
        const cp = parseCheckpoint(text);
        if (cp && Key === keyOf(cp.count)) checkpoints.push(cp);
        else bad.push(Key);
      }
      return { checkpoints: checkpoints.sort((a, b) => a.count - b.count), bad };
    },
  };
}

/** A checkpoint's JSON (an object file, or one log line's fields); null when it is not one. */
export function parseCheckpoint(text: string): PublishedCheckpoint | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  return checkpointOf(v);
}

export function checkpointOf(v: unknown): PublishedCheckpoint | null {
  if (v === null || typeof v !== "object") return null;
  const { count, hash, at } = v as Record<string, unknown>;
  if (!Number.isSafeInteger(count) || (count as number) < 0) return null;
  if (typeof hash !== "string" || !/^([0-9a-f]{64})?$/.test(hash)) return null;
  return { count: count as number, hash, at: typeof at === "string" ? at : "" };
}
