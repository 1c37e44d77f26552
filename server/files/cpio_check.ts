/**
 * Checks that an upload is a whole SWUpdate image while it streams: a cpio archive in the "newc" (`070701`) or "crc"
 * (`070702`) format, as SWUpdate reads it (core/cpio_utils.c): its first entry is `sw-description`, every header is
 * valid (magic, eight hexadecimal digits per field, a name of 1 to 254 bytes ended by its NUL, zero padding to 4
 * bytes), each file's byte sum matches its header's checksum in the crc format, the `TRAILER!!!` entry is present, and
 * nothing but zero padding follows it.
 *
 * The parser is pure and incremental (any chunking gives the same verdict) and holds at most one header and one name:
 * memory stays flat whatever the image's size. It runs in the upload's pass, beside the file's writer.
 *
 *   const parser = new CpioParser(); parser.push(chunk) ...; parser.end()  // null, or what is wrong, in words
 */
import type { StreamCheck } from "./stream_check.ts";

const HEADER = 110;
/** SWUpdate keeps names in a 256-byte buffer and refuses a name size of 256 or more. */
const MAX_NAME_SIZE = 255;
const TRAILER = "TRAILER!!!";
const FIRST = "sw-description";
/** Fields after the magic, 8 hex digits each; filesize, namesize and check are the ones read. */
const FIELDS = [
  "ino",
  "mode",
  "uid",
  "gid",
  "nlink",
  "mtime",
  "filesize",
  "devmajor",
  "devminor",
  "rdevmajor",
  "rdevminor",
  "namesize",
  "check",
] as const;

type State = "header" | "name" | "namePad" | "data" | "dataPad" | "tail";

const hexDigit = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

export class CpioParser {
  #state: State = "header";
  #offset = 0;
  /** The header (110 bytes) or the name being gathered. */
  #buf = new Uint8Array(Math.max(HEADER, MAX_NAME_SIZE));
  #filled = 0;
  #need = HEADER;
  #format: "070701" | "070702" | null = null;
  #entries = 0;
  #entryStart = 0;
  #name = "";
  #size = 0;
  #check = 0;
  #sum = 0;
  #problem: string | null = null;

  /** What is wrong, once known (then further bytes are ignored). */
  get problem(): string | null {
    return this.#problem;
  }

  /** Feeds the next bytes; answers the problem when one is found (now or before). */
  push(chunk: Uint8Array): string | null {
    let i = 0;
    while (i < chunk.length && this.#problem === null) {
      switch (this.#state) {
        case "header":
        case "name": {
          const n = Math.min(this.#need - this.#filled, chunk.length - i);
          this.#buf.set(chunk.subarray(i, i + n), this.#filled);
          const before = this.#filled;
          this.#filled += n;
          i += n;
          this.#offset += n;
          // The magic is judged as soon as it is in: a file that is not cpio is refused at its sixth byte.
          if (this.#state === "header" && before < 6 && this.#filled >= 6 && !this.#magic()) break;
          if (this.#filled === this.#need) {
            if (this.#state === "header") this.#header();
            else this.#nameDone();
          }
          break;
        }
        case "namePad":
        case "dataPad":
        case "tail": {
          const start = i;
          const stop = this.#state === "tail" ? chunk.length : Math.min(chunk.length, i + this.#need);
          while (i < stop && chunk[i] === 0) i++;
          this.#offset += i - start;
          if (this.#state !== "tail") this.#need -= i - start;
          if (i < stop) {
            this.#fail(
              this.#state === "tail"
                ? `bytes other than padding follow its cpio trailer (at byte ${this.#offset})`
                : `the padding after ${this.#what()} is not zero (byte ${this.#offset})`,
            );
          } else if (this.#state !== "tail" && this.#need === 0) {
            this.#state === "namePad" ? this.#startData() : this.#startHeader();
          }
          break;
        }
        case "data": {
          const n = Math.min(this.#need, chunk.length - i);
          if (this.#format === "070702") {
            let sum = this.#sum;
            for (let k = i; k < i + n; k++) sum += chunk[k];
            this.#sum = sum >>> 0;
          }
          i += n;
          this.#offset += n;
          this.#need -= n;
          if (this.#need === 0) this.#dataDone();
          break;
        }
      }
    }
    return this.#problem;
  }

  /** After the last byte: null for a whole, valid image, else what is wrong. */
  end(): string | null {
    if (this.#problem !== null) return this.#problem;
    if (this.#state === "tail") return null;
    if (this.#offset === 0) return "it is empty";
    return this.#fail(
      `the file ends inside ${this.#what()}, before its cpio trailer (${TRAILER}): it is truncated`,
    );
  }

  #what(): string {
    if (this.#state === "header") return `the cpio header at byte ${this.#entryStart}`;
    if (this.#state === "name") return `the name of the cpio entry at byte ${this.#entryStart}`;
    return `the cpio entry ${JSON.stringify(this.#name)} (at byte ${this.#entryStart})`;
  }

  #fail(problem: string): string {
    this.#problem ??= problem;
    return this.#problem;
  }

  #startHeader() {
    this.#state = "header";
    this.#entryStart = this.#offset;
    this.#filled = 0;
    this.#need = HEADER;
  }

  /** Whether the header's magic is valid (else the problem is set). */
  #magic(): boolean {
    const magic = String.fromCharCode(...this.#buf.subarray(0, 6));
    const at = this.#entryStart;
    if (magic !== "070701" && magic !== "070702") {
      this.#fail(
        this.#entries === 0
          ? "it is not a cpio archive in the newc or crc format (it does not start with 070701 or 070702)"
          : `the cpio header at byte ${at} has no valid magic (070701 or 070702)`,
      );
      return false;
    }
    if (this.#format !== null && magic !== this.#format) {
      this.#fail(`the cpio header at byte ${at} is ${magic} in an archive of ${this.#format} headers`);
      return false;
    }
    this.#format = magic;
    return true;
  }

  #header() {
    const b = this.#buf;
    const at = this.#entryStart;
    const values: Record<string, number> = {};
    for (let f = 0; f < FIELDS.length; f++) {
      const start = 6 + 8 * f;
      for (let k = start; k < start + 8; k++) {
        if (!hexDigit(b[k])) {
          this.#fail(`the cpio header at byte ${at} has a field (${FIELDS[f]}) that is not 8 hexadecimal digits`);
          return;
        }
      }
      values[FIELDS[f]] = parseInt(String.fromCharCode(...b.subarray(start, start + 8)), 16);
    }
    const nameSize = values.namesize;
    if (nameSize < 2 || nameSize > MAX_NAME_SIZE) {
      this.#fail(
        `the cpio header at byte ${at} gives a name size of ${nameSize} (SWUpdate reads names of 1 to ${
          MAX_NAME_SIZE - 1
        } bytes)`,
      );
      return;
    }
    this.#size = values.filesize;
    this.#check = values.check;
    this.#state = "name";
    this.#filled = 0;
    this.#need = nameSize;
  }

  #nameDone() {
    const bytes = this.#buf.subarray(0, this.#need);
    const nul = bytes.indexOf(0);
    if (nul !== bytes.length - 1) {
      this.#fail(`the name of the cpio entry at byte ${this.#entryStart} is not ended by its NUL (or holds one)`);
      return;
    }
    this.#name = new TextDecoder().decode(bytes.subarray(0, nul));
    if (this.#entries === 0 && this.#name !== FIRST) {
      this.#fail(`its first entry is ${JSON.stringify(this.#name)}, not ${FIRST}`);
      return;
    }
    this.#entries++;
    this.#state = "namePad";
    this.#need = (4 - (this.#offset % 4)) % 4;
    if (this.#need === 0) this.#startData();
  }

  #startData() {
    if (this.#name === TRAILER) {
      // The trailer holds nothing: its size is 0, and so is its checksum (the sum of no bytes).
      if (this.#size !== 0 || (this.#format === "070702" && this.#check !== 0)) {
        this.#fail(`the cpio trailer (at byte ${this.#entryStart}) gives a size or checksum other than 0`);
        return;
      }
      this.#state = "tail";
      return;
    }
    this.#state = "data";
    this.#need = this.#size;
    this.#sum = 0;
    if (this.#need === 0) this.#dataDone();
  }

  #dataDone() {
    if (this.#format === "070702" && this.#sum !== this.#check) {
      this.#fail(
        `the content of ${JSON.stringify(this.#name)} does not match its cpio checksum (the file is damaged)`,
      );
      return;
    }
    this.#state = "dataPad";
    this.#need = (4 - (this.#offset % 4)) % 4;
    if (this.#need === 0) this.#startHeader();
  }
}

/** The upload check for `.swu` files: the parser in the upload's own pass (no process, no second read). */
export function startSwuCheck(): StreamCheck {
  const parser = new CpioParser();
  let refuse: (problem: string) => void = () => {};
  const refused = new Promise<string>((resolve) => refuse = resolve);
  let done = false;
  return {
    refused,
    write(chunk) {
      if (done) return null;
      const problem = parser.push(chunk);
      if (problem !== null) {
        done = true;
        refuse(problem);
      }
      return null;
    },
    finish() {
      done = true;
      return Promise.resolve(parser.end());
    },
    abort() {
      done = true;
    },
  };
}
