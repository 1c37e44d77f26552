/** Byte ranges of a stored file: what the file seam opens (the HTTP Range header is parsed in lib/byte_range.ts). */
/** One byte range of a resource of known size: `start` and `end` inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Streams bytes [start, end] of an open file, closing it at the end or on cancel. Never reads it whole. */
export function fileRangeStream(file: Deno.FsFile, start: number, end: number): ReadableStream<Uint8Array> {
  let remaining = end - start + 1;
  let positioned = false;
  const close = () => {
    try {
      file.close();
    } catch { /* already closed */ }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!positioned) {
          await file.seek(start, Deno.SeekMode.Start);
          positioned = true;
        }
        if (remaining <= 0) {
          close();
          controller.close();
          return;
        }
        const buf = new Uint8Array(Math.min(65_536, remaining));
        const n = await file.read(buf);
        if (n === null) {
          close();
          controller.error(new Error("firmware file ended early"));
          return;
        }
        remaining -= n;
        controller.enqueue(n === buf.length ? buf : buf.subarray(0, n));
        if (remaining <= 0) {
          close();
          controller.close();
        }
      } catch (err) {
        close();
        controller.error(err);
      }
    },
    cancel() {
      close();
    },
  }, { highWaterMark: 0 });
}
