/**
 * The worker that reads one treatment import file off the main thread (started by read_off_thread.ts): it answers
 * the file read and validated, its buffers handed over without a copy, or the import_failed refusal.
 */
import { ApiHttpError } from "../errors.ts";
import { type ParsedImport, readImportFile } from "./read_import_file.ts";

export type WorkerAnswer =
  | { parsed: ParsedImport }
  | { refused: { status: number; code: string; msg: string } }
  | { failed: string };

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<{ path: string }>) => void) | null;
  postMessage(message: WorkerAnswer, transfer?: Transferable[]): void;
};

scope.onmessage = (e) => {
  let parsed: ParsedImport;
  try {
    parsed = readImportFile(e.data.path);
  } catch (err) {
    if (err instanceof ApiHttpError) {
      scope.postMessage({ refused: { status: err.status, code: err.code, msg: err.message } });
    } else scope.postMessage({ failed: err instanceof Error ? err.stack ?? err.message : String(err) });
    return;
  }
  const transfer = new Set<ArrayBuffer>([
    parsed.phases,
    parsed.starts.buffer as ArrayBuffer,
    parsed.ends.buffer as ArrayBuffer,
  ]);
  for (const { data } of parsed.images) {
    // a blob that is its buffer whole moves; one that shares a buffer is copied
    if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) transfer.add(data.buffer as ArrayBuffer);
  }
  scope.postMessage({ parsed }, [...transfer]);
};
