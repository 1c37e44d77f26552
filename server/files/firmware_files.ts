/**
 * Where firmware files live, whatever holds them: the disk under DATA_DIR (disk_firmware_files.ts) now, a bucket
 * later. Routes, the start-up sweep and backup/restore reach firmware bytes only through this interface; the rows are
 * the firmware store's (server/db/). A file becomes visible only when committed whole, under the id its row will have.
 */
import type { ByteRange } from "./byte_range.ts";
import type { CheckInput, LentInput } from "./stream_check.ts";

/** What a finished put reports: the size and the digests of the bytes (sha1 and md5 for hawkBit DDI, §18). */
export interface StoredBytes {
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
}

/** A new firmware file being written from a stream, hashed on the way. */
export interface FirmwarePut {
  /** The id the file will have (the firmware row's). */
  readonly id: string;
  /** Takes the next chunk (which the caller never changes afterwards). Null when more can be written at once; else resolves when it can. */
  write(chunk: Uint8Array): Promise<void> | null;
  /** Where supported, before the first chunk: the put passes every byte to a check's input itself (off the event loop). */
  feed?(input: CheckInput): void;
  /** Where supported, before the first chunk: the put lends every byte to a check from its own buffers (no copy). */
  lendTo?(input: LentInput): void;
  /**
   * True when write() is done with the chunk once it returns null or its promise settles (it copies it): the caller,
   * which awaits that promise before reading on, may then read the next chunk into the same buffer.
   */
  readonly copies?: boolean;
  /** After the last chunk: the bytes are stored and flushed, not yet visible; their size and digests. */
  finish(): Promise<StoredBytes>;
  /** Makes the finished bytes the file of firmware `id` (a bucket's object is complete once finished). */
  commit(): Promise<void>;
  /** Drops what was written (nothing stays); idempotent, a no-op after commit. */
  abort(): Promise<void>;
}

export interface FirmwareFiles {
  /**
   * Starts a new file for firmware `id` (default: a new id); NoSpaceError (file_write.ts) from write/finish when the
   * storage is full, FilesUnavailableError when the store cannot be reached.
   */
  put(id?: string): FirmwarePut;
  /** Bytes `range` (inclusive, or all) of firmware `id`'s file; null when the file is missing. */
  open(id: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null>;
  /** Removes firmware `id`'s file; a missing file is not an error. */
  remove(id: string): Promise<void>;
  /** The ids of every stored file. */
  list(): Promise<string[]>;
  /**
   * Removes files no row names (`ids` are every firmware row's, read just before) and anything else left in the store
   * that is not a firmware file, unless younger than `graceMs` (an upload between its file and its row: default 0, for
   * a start with no request running); answers what it removed and the ids whose file is missing (sorted).
   */
  sweep(ids: readonly string[], options?: { graceMs?: number }): Promise<{ removed: string[]; missing: string[] }>;
  /** A URL a device may download firmware `id` from directly (a bucket's presigned GET), or null (disk). */
  downloadUrl(id: string, name: string, ttlSeconds: number): Promise<string | null>;
  /** Throws FilesUnavailableError when the store cannot be reached (for /healthz). */
  check(): Promise<void>;
}

/** The firmware store cannot be reached (a bucket down or unreachable): answered 503, nothing changed. */
export class FilesUnavailableError extends Error {
  override name = "FilesUnavailableError";
}
