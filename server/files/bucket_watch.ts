/**
 * How a transfer to or from the bucket tells a busy bucket from a dead or frozen one (docs/REQUIREMENTS.md §19: 503 within
 * 2 s): a wait that lasts asks the bucket whether it is alive. Docs/DECISIONS.md, "Stores fail fast" and "Issues 30 and
 * 31 verified end to end".
 */
import { S3ServiceException } from "@aws-sdk/client-s3";
import { FilesUnavailableError } from "./firmware_files.ts";

/** How long the bucket may take (docs/SCALING.md, "When PostgreSQL is unreachable, stopped or frozen"). */
export const S3_TIMEOUTS = {
  /** A new connection. */
  connectMs: 800,
  /** A request until its answer's headers (each of two attempts). */
  answerMs: 800,
  /**
   * A part's upload, or a download's next bytes, waited for this long makes the server ask whether the bucket is alive.
   * Short: an upload waits on the bucket only once its next part is full, which may be well after the bucket froze
   * (with 0.7 s a frozen bucket's 503 came 2.2-2.7 s after the freeze on the loaded test machine).
   */
  suspectMs: 300,
  /**
   * How long the bucket has to answer that question (a HeadBucket) before the transfer fails as unavailable: with
   * suspectMs, 1.5 s, under the 2 s of docs/REQUIREMENTS.md §19. A healthy bucket busy writing parts (s3rver on a loaded 2-core
   * machine) answered a HeadBucket in over 0.8 s, so the question gets 1.2 s.
   */
  probeMs: 1200,
  /**
   * Once every part is stored, the bucket assembles the object (CompleteMultipartUpload): some stores copy the whole
   * object then and answer nothing else meanwhile (s3rver: ~7 ms per MiB on an idle machine, a 768 MiB upload silent
   * for over 1.9 s; a 1 GiB one over 60 s at load 8-12), so unanswered questions fail the upload only after this long,
   * plus assemblyMsPerMiB for each MiB of the object. Docs/DECISIONS.md, "Issues 30 and 31 verified end to end".
   */
  assemblyMs: 60_000,
  assemblyMsPerMiB: 60,
};

/** How long a bucket may stay silent while it assembles an object of `bytes`. */
export const assemblyAllowanceMs = (bytes: number) =>
  S3_TIMEOUTS.assemblyMs + S3_TIMEOUTS.assemblyMsPerMiB * bytes / 2 ** 20;
/**
 * Any failure of the bucket (unreachable, a timeout, its 5xx, and also a refusal such as AccessDenied or NoSuchBucket,
 * which only the operator can fix) is 503: the request changed nothing and can be retried.
 */
export function asUnavailable(err: unknown): Error {
  if (err instanceof FilesUnavailableError) return err;
  const why = err instanceof S3ServiceException
    ? `${err.name}: ${err.message}`
    : err instanceof Error
    ? err.message
    : err;
  return new FilesUnavailableError(`The firmware store (bucket) cannot be used: ${why}`);
}

export function unavailable(err: unknown): never {
  throw asUnavailable(err);
}

/**
 * `wait`, unless the bucket stops answering meanwhile: after S3_TIMEOUTS.suspectMs of waiting, and again after each
 * answer, `alive()` asks it; no answer within S3_TIMEOUTS.probeMs and `dead()` runs and this rejects with
 * FilesUnavailableError. A bucket that answers is only slow: the wait goes on. (A frozen bucket is silent the way a
 * busy one is, for a moment; only the question tells them apart: docs/DECISIONS.md, "Stores fail fast".)
 */
export async function watched<T>(
  wait: Promise<T>,
  alive: () => Promise<boolean>,
  dead: () => void,
  assemblingUntil: () => number | undefined = () => undefined,
): Promise<T> {
  const settled = wait.then((value) => ({ value }));
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const quiet = new Promise<"quiet">((resolve) => timer = setTimeout(() => resolve("quiet"), S3_TIMEOUTS.suspectMs));
    const first = await Promise.race([settled, quiet]).finally(() => clearTimeout(timer));
    if (first !== "quiet") return first.value;
    const answer = await Promise.race([settled, alive()]);
    const until = assemblingUntil();
    if (answer === false && until !== undefined && performance.now() < until) continue;
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
