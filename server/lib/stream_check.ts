/** A check of an upload's content made while it streams, fed the same chunks as the disk (see upload.ts). */
export interface StreamCheck {
  /**
   * Feeds the next chunk (not modified afterwards). Null when the check can take more at once; else a promise that
   * resolves when it can (backpressure: the caller stops reading until then).
   */
  write(chunk: Uint8Array): Promise<void> | null;
  /** After the last chunk: null when the content is valid, else what is wrong with it, in words. */
  finish(): Promise<string | null>;
  /** Resolves with what is wrong as soon as the check refuses the content before its end; never for valid content. */
  readonly refused: Promise<string>;
  /** Stops the check (the upload failed for another reason); idempotent. */
  abort(): void;
}
