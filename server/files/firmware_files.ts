/**
 * Where firmware files live, whatever holds them: the disk under DATA_DIR (disk_firmware_files.ts) now, a bucket
 * later. Routes, the start-up sweep and backup/restore reach firmware bytes only through this interface; the rows are
 * the firmware store's (server/db/). A file becomes visible only when committed whole, under the id its row will have.
 */
import type { ByteRange } from "../lib/byte_range.ts";

/** A new firmware file being written from a stream, hashed on the way. */
export interface FirmwarePut {
  /** Takes the next chunk (copied). Null when more can be written at once; else resolves when it can. */
  write(chunk: Uint8Array): Promise<void> | null;
  /** After the last chunk: the bytes are stored and flushed, not yet visible; their size and SHA-256. */
  finish(): Promise<{ size: number; sha256: string }>;
  /** Makes the finished bytes the file of firmware `id`. */
  commit(id: string): Promise<void>;
  /** Drops what was written (nothing stays); idempotent, a no-op after commit. */
  abort(): Promise<void>;
}

export interface FirmwareFiles {
  /** Starts a new file; NoSpaceError (file_write.ts) from write/finish when the storage is full. */
  put(): FirmwarePut;
  /** Bytes `range` (inclusive, or all) of firmware `id`'s file; null when the file is missing. */
  open(id: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null>;
  /** Removes firmware `id`'s file; a missing file is not an error. */
  remove(id: string): Promise<void>;
  /** The ids of every stored file. */
  list(): Promise<string[]>;
  /**
   * At start, with no request running: removes files no row names (`ids` are every firmware row's) and anything else
   * left in the store that is not a firmware file; answers what it removed and the ids whose file is missing (sorted).
   */
  sweep(ids: readonly string[]): Promise<{ removed: string[]; missing: string[] }>;
}
