/**
 * The thread that writes one streamed file and hashes it (see file_write.ts): synchronous writes and SHA-256 here
 * cost the event loop nothing. Each batch is acknowledged once it is written, so the sender keeps a bounded window.
 * Given a check's input (`feed`: the stdin of `xz --test`, stream_check.ts CheckInput), it writes each batch there
 * too, by blocking writes, before the file: the check's pace is then the window's.
 */
import { createFileOut, type FileOut } from "./direct_file.ts";
import { fileHashes } from "./file_hashes.ts";
import type { StoredBytes } from "./firmware_files.ts";

export type WriteRequest =
  | { open: string }
  /** The path of a check's input to write every batch to as well (before any chunk), and its pipe's capacity. */
  | { feed: string; pipeBytes: number }
  | { chunk: Uint8Array }
  | { finish: true }
  | { close: true };

export type WriteAnswer =
  /** A batch is written: its buffer comes back for the next batch (no allocation per batch). */
  | { written: number; buffer: ArrayBuffer }
  /** The check's input is open (or its process is gone already: its exit status is the verdict). */
  | { feeding: true }
  | { finished: StoredBytes }
  /** `noSpace`: the file system is full (ENOSPC, EDQUOT); the file is left for the sender to remove. */
  | { failed: string; noSpace: boolean }
  /** The file is closed and the thread ends: the sender may remove the file now. */
  | { closed: true };

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WriteRequest>) => void) | null;
  postMessage(message: WriteAnswer, transfer?: Transferable[]): void;
  close(): void;
};

let file: FileOut | null = null;
let feed: Deno.FsFile | null = null;
let size = 0;
let failed = false;
const hashes = fileHashes();

/** The capacity of the check's pipe: each batch goes to it and to the hashes this many bytes at a time. */
let pipeBytes = 64 * 1024;

const NO_SPACE = /ENOSPC|EDQUOT|No space left|quota exceeded/i;

const closeFeed = () => {
  try {
    feed?.close();
  } catch { /* closed after a failure */ }
  feed = null;
};

/** Passes a batch to the check; a check that has exited (a broken pipe) is not fed any more. */
function feedBatch(chunk: Uint8Array) {
  try {
    for (let off = 0; off < chunk.length;) off += feed!.writeSync(chunk.subarray(off));
  } catch (err) {
    if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
    closeFeed();
  }
}

scope.onmessage = ({ data }) => {
  if ("close" in data) {
    closeFeed();
    try {
      file?.close();
    } catch { /* closed after a failure */ }
    file = null;
    scope.postMessage({ closed: true });
    scope.close();
    return;
  }
  if (failed) return;
  try {
    if ("open" in data) {
      file = createFileOut(data.open);
    } else if ("feed" in data) {
      pipeBytes = data.pipeBytes;
      try {
        feed = Deno.openSync(data.feed, { write: true });
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
      scope.postMessage({ feeding: true });
    } else if ("chunk" in data) {
      const chunk = data.chunk;
      // The check's input and the hashes take the batch a pipe's worth at a time: xz reads one piece while the next is
      // hashed, so a write finds the pipe empty instead of blocking on it 16 times per batch (half the thread's
      // context switches; docs/DECISIONS.md, "Uploads to disk near the hashing floor").
      for (let at = 0; at < chunk.length; at += pipeBytes) {
        const piece = chunk.subarray(at, at + pipeBytes);
        if (feed) feedBatch(piece);
        hashes.update(piece);
      }
      file!.write(chunk);
      size += chunk.length;
      scope.postMessage({ written: chunk.length, buffer: chunk.buffer as ArrayBuffer }, [chunk.buffer]);
    } else if ("finish" in data) {
      closeFeed(); // the check reads the end while the file is flushed
      // Flushed before it can be committed: a committed row never points at a file a power loss truncated.
      file!.finish();
      file!.close();
      file = null;
      scope.postMessage({ finished: { size, ...hashes.digest() } });
    }
  } catch (err) {
    // The check's input stays open until close: its end now would read as a truncated file, a verdict on the file
    // racing the failure's own answer (the sender stops the check before it closes).
    failed = true;
    try {
      file?.close();
    } catch { /* already failed */ }
    file = null;
    const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    scope.postMessage({ failed: text, noSpace: NO_SPACE.test(text) });
  }
};
