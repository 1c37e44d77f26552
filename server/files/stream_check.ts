/** A check of an upload's content made while it streams, fed the same chunks as the disk (see upload.ts). */
export interface StreamCheck {
  /**
   * Feeds the next chunk (not modified afterwards). Null when the check can take more at once; else a promise that
   * resolves when it can (backpressure: the caller stops reading until then).
   */
  write(chunk: Uint8Array): Promise<void> | null;
  /**
   * After the last chunk: null when the content is valid, else what is wrong with it, in words. Throws a
   * CheckInterruptedError when the check was stopped before it could judge.
   */
  finish(): Promise<string | null>;
  /**
   * Resolves with what is wrong as soon as the check refuses the content before its end; never for valid content.
   * Rejects with a CheckInterruptedError when the check was stopped by something else before the end.
   */
  readonly refused: Promise<string>;
  /** Stops the check (the upload failed for another reason); idempotent. */
  abort(): void;
}

/**
 * The check itself was stopped before it could judge the content (its helper process was killed by a signal: the
 * server stopping, an operator, the OOM killer): says nothing about the file. `refused` rejects with it (or finish()
 * throws it); the upload is answered 503, never as invalid content.
 */
export class CheckInterruptedError extends Error {
  override name = "CheckInterruptedError";
}
