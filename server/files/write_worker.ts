/**
 * The thread that writes one streamed file and hashes it (see file_write.ts): synchronous writes and SHA-256 here
 * cost the event loop nothing. Each batch is acknowledged once it is written, so the sender keeps a bounded window.
 */
import { createHash } from "node:crypto";

export type WriteRequest =
  | { open: string }
  | { chunk: Uint8Array }
  | { finish: true }
  | { close: true };

export type WriteAnswer =
  /** A batch is written: its buffer comes back for the next batch (no allocation per batch). */
  | { written: number; buffer: ArrayBuffer }
  | { finished: { size: number; sha256: string; sha1: string; md5: string } }
  /** `noSpace`: the file system is full (ENOSPC, EDQUOT); the file is left for the sender to remove. */
  | { failed: string; noSpace: boolean }
  /** The file is closed and the thread ends: the sender may remove the file now. */
  | { closed: true };

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WriteRequest>) => void) | null;
  postMessage(message: WriteAnswer, transfer?: Transferable[]): void;
  close(): void;
};

let file: Deno.FsFile | null = null;
let size = 0;
let failed = false;
// sha1 and md5 too: hawkBit DDI lists them (docs/REQUIREMENTS.md §18), and this pass is the one that sees every byte.
const hashes = [createHash("sha256"), createHash("sha1"), createHash("md5")];

const NO_SPACE = /ENOSPC|EDQUOT|No space left|quota exceeded/i;

scope.onmessage = ({ data }) => {
  if ("close" in data) {
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
      file = Deno.openSync(data.open, { write: true, createNew: true, mode: 0o600 });
    } else if ("chunk" in data) {
      const chunk = data.chunk;
      for (let off = 0; off < chunk.length;) off += file!.writeSync(chunk.subarray(off));
      for (const hash of hashes) hash.update(chunk);
      size += chunk.length;
      scope.postMessage({ written: chunk.length, buffer: chunk.buffer as ArrayBuffer }, [chunk.buffer]);
    } else if ("finish" in data) {
      // Flushed before it can be committed: a committed row never points at a file a power loss truncated.
      file!.syncDataSync();
      file!.close();
      file = null;
      const [sha256, sha1, md5] = hashes.map((hash) => hash.digest("hex"));
      scope.postMessage({ finished: { size, sha256, sha1, md5 } });
    }
  } catch (err) {
    failed = true;
    try {
      file?.close();
    } catch { /* already failed */ }
    file = null;
    const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    scope.postMessage({ failed: text, noSpace: NO_SPACE.test(text) });
  }
};
