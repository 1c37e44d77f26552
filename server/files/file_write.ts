/**
 * One file written from a stream, off the main thread: the bytes go in batches of up to 1 MiB to a Worker that writes
 * and hashes them (write_worker.ts). At most WINDOW bytes are in flight; beyond that write() answers a promise, which
 * is the backpressure the upload reader awaits. Why a worker: docs/DECISIONS.md, "Firmware store and the upload
 * pipeline".
 */
import type { WriteAnswer, WriteRequest } from "./write_worker.ts";
import type { StoredBytes } from "./firmware_files.ts";
import type { CheckInput } from "./stream_check.ts";

/** Bytes handed to the writer and not yet written before write() makes the caller wait (4 MiB: 8 cost ~3 MiB more
 * peak RSS per upload and no measurable CPU; docs/DECISIONS.md, "Uploads to disk near the hashing floor"). */
const WINDOW = 4 << 20;
/** Bytes gathered before they are handed to the writer (fewer messages and system calls). */
const BATCH = 1 << 20;

/** The file system has no room left for the file (ENOSPC or a quota). */
export class NoSpaceError extends Error {}

export interface FileWrite {
  /** Takes the next chunk (copied: the caller may reuse it). Null when more can be written at once. */
  write(chunk: Uint8Array): Promise<void> | null;
  /** After the last chunk: everything is written and flushed; the size and digests of the bytes. */
  finish(): Promise<StoredBytes>;
  /** Before the first write: every byte goes to the check's input too, from the writer's thread (write_worker.ts). */
  feed(input: CheckInput): void;
  /** Stops writing; resolves once the file is closed and no write can follow (the file stays for the caller to
   * remove). Idempotent. */
  close(): Promise<void>;
}

/** Starts writing a new file at `path` (created 0600; an existing file is an error). */
export function startFileWrite(path: string): FileWrite {
  const worker = new Worker(new URL("./write_worker.ts", import.meta.url), { type: "module" });
  const send = (message: WriteRequest, transfer: Transferable[] = []) => worker.postMessage(message, transfer);
  let inFlight = 0;
  let batch: Uint8Array | null = null;
  /** Buffers of written batches, given back by the worker: at most WINDOW / BATCH + 1 are ever allocated. */
  const spare: ArrayBuffer[] = [];
  let filled = 0;
  let error: Error | null = null;
  let closing: Promise<void> | null = null;
  let closed = () => {};
  let drained: { resolve: () => void; reject: (e: Error) => void } | null = null;
  let finished: { resolve: (v: StoredBytes) => void; reject: (e: Error) => void } | null = null;
  let input: CheckInput | null = null;
  let first = true;

  const fail = (err: Error) => {
    if (error) return;
    error = err;
    drained?.reject(err);
    finished?.reject(err);
    drained = finished = null;
    // A check fed by the writer is stopped by the caller first (then closed by its abort): a close here would end its
    // input and make it blame the file.
    if (!input) close();
  };
  const close = () =>
    closing ??= new Promise<void>((resolve) => {
      // The worker answers once the file is closed, then ends; terminated if it does not answer (then nothing writes).
      const timer = setTimeout(() => {
        worker.terminate();
        resolve();
      }, 5_000);
      closed = () => {
        clearTimeout(timer);
        resolve();
      };
      send({ close: true });
    });
  worker.onmessage = ({ data }: MessageEvent<WriteAnswer>) => {
    if ("written" in data) {
      inFlight -= data.written;
      if (data.buffer.byteLength === BATCH) spare.push(data.buffer);
      if (drained && inFlight <= WINDOW) {
        drained.resolve();
        drained = null;
      }
    } else if ("feeding" in data) {
      input?.opened();
    } else if ("finished" in data) {
      finished?.resolve(data.finished);
      finished = null;
      close();
    } else if ("closed" in data) {
      closed();
    } else {
      fail(data.noSpace ? new NoSpaceError(data.failed) : new Error(`Writing ${path} failed: ${data.failed}`));
    }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    fail(new Error(`The file writer failed: ${e.message}`));
    worker.terminate();
    closed();
  };
  send({ open: path });

  const flush = () => {
    if (!batch || filled === 0) return;
    const full = filled === batch.length ? batch : batch.subarray(0, filled);
    inFlight += full.length;
    send({ chunk: full }, [full.buffer]);
    batch = null;
    filled = 0;
  };

  return {
    write(chunk) {
      if (error) return Promise.reject(error);
      let off = 0;
      while (off < chunk.length) {
        batch ??= new Uint8Array(spare.pop() ?? new ArrayBuffer(BATCH));
        const n = Math.min(batch.length - filled, chunk.length - off);
        batch.set(chunk.subarray(off, off + n), filled);
        filled += n;
        off += n;
        if (filled === batch.length) flush();
      }
      // The first chunk goes as it comes: a check fed by the writer (feed) refuses a file that is not xz at once.
      if (first) {
        first = false;
        flush();
      }
      if (inFlight <= WINDOW) return null;
      return new Promise<void>((resolve, reject) => drained = { resolve, reject });
    },
    finish() {
      if (error) return Promise.reject(error);
      flush();
      return new Promise((resolve, reject) => {
        finished = { resolve, reject };
        send({ finish: true });
      });
    },
    feed(checkInput) {
      input = checkInput;
      input.handOver();
      send({ feed: input.path, pipeBytes: input.pipeBytes });
    },
    close,
  };
}
