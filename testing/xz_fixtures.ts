/**
 * xz streams built here, without the `xz` tool: one block of stored (uncompressed) LZMA2 chunks with a real
 * integrity check, index and footer, per the .xz file format. Fast to make at any size (a GiB in seconds), and
 * exact to break: the broken variants below are what the upload check must refuse.
 */
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";

export type XzCheck = "none" | "crc32" | "crc64" | "sha256";

const CHECK_ID: Record<XzCheck, number> = { none: 0, crc32: 1, crc64: 4, sha256: 10 };
const CHECK_SIZE: Record<XzCheck, number> = { none: 0, crc32: 4, crc64: 8, sha256: 32 };
const MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
const FOOTER_MAGIC = [0x59, 0x5a];
/** LZMA2 stores at most 64 KiB per uncompressed chunk. */
const STORED_CHUNK = 1 << 16;

const u32le = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

const pad4 = (n: number) => new Array((4 - (n % 4)) % 4).fill(0);

/** CRC-64/XZ (ECMA-182, reflected), on two 32-bit halves. */
const CRC64_TABLE = (() => {
  const lo = new Uint32Array(256), hi = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let l = i, h = 0;
    for (let k = 0; k < 8; k++) {
      const bit = l & 1;
      l = ((l >>> 1) | ((h & 1) << 31)) >>> 0;
      h = h >>> 1;
      if (bit) {
        l = (l ^ 0xd7870f42) >>> 0;
        h = (h ^ 0xc96c5795) >>> 0;
      }
    }
    lo[i] = l;
    hi[i] = h;
  }
  return { lo, hi };
})();

function crc64() {
  let l = 0xffffffff, h = 0xffffffff;
  return {
    update(bytes: Uint8Array) {
      const { lo, hi } = CRC64_TABLE;
      for (let i = 0; i < bytes.length; i++) {
        const t = (l ^ bytes[i]) & 0xff;
        l = (((l >>> 8) | ((h & 0xff) << 24)) ^ lo[t]) >>> 0;
        h = ((h >>> 8) ^ hi[t]) >>> 0;
      }
    },
    digest: () => new Uint8Array([...u32le(~l >>> 0), ...u32le(~h >>> 0)]),
  };
}

function checker(check: XzCheck) {
  if (check === "none") return { update: (_: Uint8Array) => {}, digest: () => new Uint8Array(0) };
  if (check === "crc64") return crc64();
  if (check === "sha256") {
    const h = createHash("sha256");
    return { update: (b: Uint8Array) => void h.update(b), digest: () => new Uint8Array(h.digest()) };
  }
  let c = 0;
  return { update: (b: Uint8Array) => void (c = crc32(b, c)), digest: () => new Uint8Array(u32le(c)) };
}

function streamFlags(check: XzCheck) {
  return [0x00, CHECK_ID[check]];
}

function streamHeader(check: XzCheck): Uint8Array {
  const flags = streamFlags(check);
  return new Uint8Array([...MAGIC, ...flags, ...u32le(crc32(new Uint8Array(flags)))]);
}

/** Block header: no sizes, one filter (LZMA2, 8 MiB dictionary), padded, CRC32. */
function blockHeader(): Uint8Array {
  const body = [0x00, 0x21, 0x01, 0x16];
  const size = 1 + body.length + 4;
  const padded = [Math.ceil(size / 4) - 1, ...body];
  padded.push(...pad4(padded.length + 4));
  return new Uint8Array([...padded, ...u32le(crc32(new Uint8Array(padded)))]);
}

function indexAndFooter(check: XzCheck, records: [number, number][]): Uint8Array {
  const index = [0x00, ...varint(records.length)];
  for (const [unpadded, uncompressed] of records) index.push(...varint(unpadded), ...varint(uncompressed));
  index.push(...pad4(index.length));
  index.push(...u32le(crc32(new Uint8Array(index))));
  const tail = [...u32le(index.length / 4 - 1), ...streamFlags(check)];
  return new Uint8Array([...index, ...u32le(crc32(new Uint8Array(tail))), ...tail, ...FOOTER_MAGIC]);
}

/** The pieces of one xz stream, fed the content in pieces: one block of stored LZMA2 chunks, none when empty. */
function storedXzEncoder(check: XzCheck) {
  const header = blockHeader();
  const sum = checker(check);
  let stored = 0, compressed = 0, first = true;
  return {
    start: () => [streamHeader(check)],
    push(piece: Uint8Array): Uint8Array[] {
      const out: Uint8Array[] = [];
      for (let off = 0; off < piece.length; off += STORED_CHUNK) {
        const part = piece.subarray(off, Math.min(piece.length, off + STORED_CHUNK));
        if (first) out.push(header);
        // 0x01: stored chunk resetting the dictionary (the first), 0x02: stored chunk without reset.
        const n = part.length - 1;
        out.push(new Uint8Array([first ? 0x01 : 0x02, n >>> 8, n & 0xff]), part);
        sum.update(part);
        first = false;
        stored += part.length;
        compressed += 3 + part.length;
      }
      return out;
    },
    end(): Uint8Array[] {
      if (first) return [indexAndFooter(check, [])];
      compressed += 1; // the LZMA2 end marker
      return [
        new Uint8Array([0x00, ...pad4(header.length + compressed)]),
        sum.digest(),
        indexAndFooter(check, [[header.length + compressed + CHECK_SIZE[check], stored]]),
      ];
    },
  };
}

/** A complete xz stream of `content` (given in pieces, so a GiB never sits in memory), in pieces. */
export async function* xzStreamOf(
  content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  check: XzCheck = "crc64",
): AsyncGenerator<Uint8Array> {
  const enc = storedXzEncoder(check);
  yield* enc.start();
  for await (const piece of content) yield* enc.push(piece);
  yield* enc.end();
}

/** The xz stream of `content` as one array (small contents: tests). */
export function xzBytes(content: Uint8Array | string, check: XzCheck = "crc64"): Uint8Array<ArrayBuffer> {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const enc = storedXzEncoder(check);
  return concat([...enc.start(), ...enc.push(bytes), ...enc.end()]);
}

/** The exact size of the stream xzStreamOf makes of `contentBytes` bytes. */
export function storedXzSize(contentBytes: number, check: XzCheck = "crc64"): number {
  if (contentBytes === 0) return 32;
  const compressed = 3 * Math.ceil(contentBytes / STORED_CHUNK) + contentBytes + 1;
  const unpadded = 12 + compressed + CHECK_SIZE[check];
  const index = 2 + varint(unpadded).length + varint(contentBytes).length;
  return 12 + 12 + compressed + pad4(compressed).length + CHECK_SIZE[check] + index + pad4(index).length + 4 + 12;
}

/** The content length whose stream is exactly `total` bytes (xz streams are whole 4-byte units). */
export function contentForSize(total: number, check: XzCheck = "crc64"): number {
  if (total % 4 !== 0 || total < 32) throw new Error(`no xz stream is ${total} bytes long`);
  const estimate = Math.max(0, total - 3 * Math.ceil(total / STORED_CHUNK) - 40 - CHECK_SIZE[check]);
  for (let c = estimate + 8; c >= 0 && c >= estimate - 64; c--) if (storedXzSize(c, check) === total) return c;
  if (total === 32) return 0;
  throw new Error(`no stored xz stream of ${total} bytes`);
}

/** Deterministic filler bytes in pieces of at most 1 MiB, `n` in all (a fresh array each: callers may keep them). */
export function* filler(n: number, seed = 0x9e3779b9): Generator<Uint8Array> {
  let x = seed >>> 0 || 1;
  for (let done = 0; done < n;) {
    const size = Math.min(1 << 20, n - done);
    const words = new Uint32Array(Math.ceil(size / 4));
    for (let i = 0; i < words.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      words[i] = x;
    }
    yield new Uint8Array(words.buffer, 0, size);
    done += size;
  }
}

/** A valid xz stream of exactly `total` bytes (a multiple of 4), made in pieces: never held whole. */
export function xzStreamOfSize(total: number, check: XzCheck = "crc32", seed?: number): AsyncGenerator<Uint8Array> {
  return xzStreamOf(filler(contentForSize(total, check), seed), check);
}

/** A valid xz stream of exactly `total` bytes (a multiple of 4) in one array. */
export function xzOfSize(total: number, check: XzCheck = "crc32", seed?: number): Uint8Array<ArrayBuffer> {
  const enc = storedXzEncoder(check);
  const parts = enc.start();
  for (const piece of filler(contentForSize(total, check), seed)) parts.push(...enc.push(piece));
  return concat([...parts, ...enc.end()]);
}

/**
 * Writes a valid xz file of `fileBytes` (rounded up to a multiple of 4) whose content is pseudo-random: `xz` could
 * not shrink it either. Streamed to disk in seconds even for a GiB; answers the file's exact size.
 */
export async function writeXzFile(path: string, fileBytes: number, check: XzCheck = "crc32"): Promise<number> {
  const total = Math.max(32, Math.ceil(fileBytes / 4) * 4);
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  for await (const part of xzStreamOfSize(total, check)) {
    for (let off = 0; off < part.length;) off += await file.write(part.subarray(off));
  }
  return total;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** Broken variants of a valid stream, each of which `xz -t` refuses. */
export const brokenXz = {
  /** The stream cut in the middle: no index, no footer. */
  truncated: (xz: Uint8Array) => xz.slice(0, Math.floor(xz.length / 2)),
  /** One byte of the block's data flipped: the data still decodes, the block's integrity check fails. */
  flippedMidBlock: (xz: Uint8Array) => {
    const out = xz.slice();
    out[Math.floor(xz.length / 2)] ^= 0x55;
    return out;
  },
  /** The footer's magic bytes ("YZ") changed. */
  badFooter: (xz: Uint8Array) => {
    const out = xz.slice();
    out[out.length - 1] ^= 0xff;
    return out;
  },
  /** The whole stream, then bytes that are neither padding nor another stream. */
  trailingGarbage: (xz: Uint8Array, garbage = "trailing bytes") => concat([xz, new TextEncoder().encode(garbage)]),
  /** The six magic bytes, then random bytes: starts like an xz file and is not one. */
  magicThenRandom: (n: number, seed = 1) => {
    const out = new Uint8Array(MAGIC.length + n);
    out.set(MAGIC);
    let x = seed >>> 0 || 1;
    for (let i = MAGIC.length; i < out.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = x & 0xff;
    }
    return out;
  },
};
