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
  /** Present when a writer on another thread may pass the bytes to the check's helper process itself (CheckInput). */
  readonly input?: CheckInput;
  /** Present when the check can take the bytes from the caller's own buffers without copying them (LentInput). */
  readonly lent?: LentInput;
  /** True when write() keeps no chunk past its return (it copies what it holds): the caller may reuse its buffer. */
  readonly copies?: boolean;
}

/**
 * The input of a check's helper process, which a writer on another thread can open itself: the bytes then go from that
 * thread to the helper by blocking writes instead of through the event loop (docs/DECISIONS.md, "Uploads near the
 * hashing floor"). Protocol: handOver() before the first write(); the writer opens `path` for writing and calls
 * opened(); it closes `path` after the last byte (the helper reads the end), and stops writing quietly if the helper
 * has gone (a broken pipe: its exit status is the verdict).
 */
export interface CheckInput {
  /** What the writer opens for writing (the helper's standard input). */
  readonly path: string;
  /** The capacity of that pipe, likely: the writer hands it this many bytes per write. */
  readonly pipeBytes: number;
  /** From now on write() only looks at the bytes; the writer passes them on. */
  handOver(): void;
  /** The writer holds the input open: the check lets go of its own end. */
  opened(): void;
}

/**
 * The input of a check that reads the bytes where its caller keeps them (a bucket put's part buffers) instead of copying
 * each chunk into a batch of its own: one copy of the file less on the event loop (docs/DECISIONS.md, "xz fed from the
 * part buffers"). Protocol: handOver() before the first write(); then every byte goes through lend(), in order, and the
 * caller changes no lent byte before that lend's promise settles.
 */
export interface LentInput {
  /** From now on write() only looks at the bytes; lend() passes them on. */
  handOver(): void;
  /** The next bytes; settles (never rejects) once the check is done with them: taken, or the check has ended. */
  lend(bytes: Uint8Array): Promise<void>;
}

/**
 * The check itself was stopped before it could judge the content (its helper process was killed by a signal: the
 * server stopping, an operator, the OOM killer): says nothing about the file. `refused` rejects with it (or finish()
 * throws it); the upload is answered 503, never as invalid content.
 */
export class CheckInterruptedError extends Error {
  override name = "CheckInterruptedError";
}
