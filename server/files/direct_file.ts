/**
 * A new file written past the page cache (O_DIRECT) where the file system takes it, else through it. A firmware upload
 * is written once and read rarely: through the page cache, every GiB costs the writer ~262,000 new pages (0.2 s of
 * system time per GiB at best, 0.9-2 s on a VM whose host hands back freed memory lazily) and pushes the database's
 * pages out of memory; written directly, the device reads it from a buffer of ours (0.1 s per GiB). Figures and the
 * decision: docs/DECISIONS.md, "Firmware files written past the page cache".
 *
 * Direct writes need the buffer's address, the length and the file offset aligned to the device's block (512 or 4096
 * bytes). Offsets and lengths are multiples of 4096 here (the last block is padded with zeros, then the file is cut to
 * its size); the address is found once per file by trying the offsets of one staging buffer until a write succeeds.
 */
import fs from "node:fs";

/** Bytes gathered before one direct write. */
const STAGE = 1 << 20;
/** Alignment of every direct write's offset and length: covers 512- and 4096-byte devices. */
const BLOCK = 4096;
/** Buffer addresses tried: V8 aligns backing stores to at least 16 bytes. */
const ADDRESS_STEP = 16;

export interface FileOut {
  /** Whether the bytes bypass the page cache (tests, figures). */
  readonly direct: boolean;
  /** Appends all of `bytes` (copied: the caller may reuse them). */
  write(bytes: Uint8Array): void;
  /** After the last write: the file holds exactly the bytes written, flushed to the device (fdatasync). */
  finish(): void;
  /** Closes the file; idempotent. */
  close(): void;
}

/** Creates `path` (0600; an existing file is an error) and writes it directly unless `buffered` or refused. */
export function createFileOut(path: string, opts: { buffered?: boolean } = {}): FileOut {
  // Created by Deno's own open, so that "an existing file is an error" holds whatever follows; the direct descriptor is
  // a second one on the same file.
  const file = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
  try {
    const direct = opts.buffered ? null : openDirect(path, file);
    return direct ?? bufferedOut(file);
  } catch (err) {
    file.close();
    throw err;
  }
}

function bufferedOut(file: Deno.FsFile): FileOut {
  let open = true;
  return {
    direct: false,
    write(bytes) {
      for (let off = 0; off < bytes.length;) off += file.writeSync(bytes.subarray(off));
    },
    finish() {
      file.syncDataSync();
    },
    close() {
      if (open) file.close();
      open = false;
    },
  };
}

/** The direct writer, or null where the file system or the device refuses direct writes (then nothing was written). */
function openDirect(path: string, file: Deno.FsFile): FileOut | null {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_DIRECT);
  } catch (err) {
    // A file system without O_DIRECT (some FUSE ones, tmpfs before Linux 6.6).
    if (["EINVAL", "EOPNOTSUPP", "ENOTSUP"].includes(errorCode(err) ?? "")) return null;
    throw err;
  }
  const raw = new Uint8Array(STAGE + BLOCK);
  let stage: Uint8Array | null = null;
  for (let at = 0; at < BLOCK && !stage; at += ADDRESS_STEP) {
    try {
      fs.writeSync(fd, raw, at, BLOCK, 0);
      stage = raw.subarray(at, at + STAGE);
    } catch (err) {
      if (errorCode(err) !== "EINVAL") {
        fs.closeSync(fd);
        throw err;
      }
    }
  }
  if (!stage) {
    fs.closeSync(fd);
    return null;
  }
  const staged = stage;
  let filled = 0;
  /** Bytes on the device so far (a multiple of STAGE until the end). */
  let written = 0;
  let open = true;
  const writeStage = (length: number) => {
    let done = 0;
    while (done < length) {
      const n = fs.writeSync(fd, staged, done, length - done, written + done);
      if (n <= 0) throw new Error("Writing the file failed: the device took no bytes");
      done += n;
      // A short direct write (the file system nearly full) leaves the rest unaligned: the page cache takes it, and
      // reports what the device refuses (ENOSPC).
      if (done < length && done % BLOCK !== 0) {
        file.seekSync(written + done, Deno.SeekMode.Start);
        for (let off = done; off < length;) off += file.writeSync(staged.subarray(off, length));
        done = length;
      }
    }
  };
  return {
    direct: true,
    write(bytes) {
      for (let off = 0; off < bytes.length;) {
        const n = Math.min(STAGE - filled, bytes.length - off);
        staged.set(bytes.subarray(off, off + n), filled);
        filled += n;
        off += n;
        if (filled === STAGE) {
          writeStage(STAGE);
          written += STAGE;
          filled = 0;
        }
      }
    },
    finish() {
      const size = written + filled;
      if (filled > 0) {
        const padded = Math.ceil(filled / BLOCK) * BLOCK;
        staged.fill(0, filled, padded);
        writeStage(padded);
      }
      // The alignment probe or the last block's padding may reach past the end.
      file.truncateSync(size);
      file.syncDataSync();
    },
    close() {
      if (!open) return;
      open = false;
      fs.closeSync(fd);
      file.close();
    },
  };
}

function errorCode(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}
