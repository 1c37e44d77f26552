/**
 * The SWUpdate image check (server/files/cpio_check.ts): a pure, incremental cpio parser. Valid archives in both
 * formats pass under any chunking; each broken header, name, padding, checksum and tail is refused in words; every
 * truncation and a sample of bit flips never pass.
 */
import assert from "node:assert/strict";
import { CpioParser, startSwuCheck } from "../../server/files/cpio_check.ts";
import { cpioArchive, type CpioEntry, type CpioFormat } from "../../testing/swu.ts";

const enc = new TextEncoder();
const entries = (image = enc.encode("image bytes ".repeat(37))): CpioEntry[] => [
  { name: "sw-description", data: enc.encode('software = { version = "1.0.0"; };\n') },
  { name: "sw-description.sig", data: new Uint8Array([0x30, 0x82, 1, 2, 3]) },
  { name: "image.bin", data: image },
];

/** The verdict on the bytes fed in chunks of `step` (0: whole). */
function verdict(bytes: Uint8Array, step = 0): string | null {
  const parser = new CpioParser();
  if (step <= 0) parser.push(bytes);
  else for (let i = 0; i < bytes.length; i += step) parser.push(bytes.subarray(i, i + step));
  return parser.end();
}

/** Rewrites one 8-digit field of the header at `at` (fields after the 6-byte magic, 0 = ino, 6 = filesize ...). */
function setField(bytes: Uint8Array, at: number, field: number, text: string): Uint8Array {
  const out = bytes.slice();
  out.set(enc.encode(text), at + 6 + 8 * field);
  return out;
}

const SECOND_HEADER = (() => {
  const first = entries()[0];
  const nameEnd = 110 + "sw-description".length + 1;
  const dataStart = nameEnd + ((4 - (nameEnd % 4)) % 4);
  const dataEnd = dataStart + first.data.length;
  return dataEnd + ((4 - (dataEnd % 4)) % 4);
})();

for (const format of ["070701", "070702"] as CpioFormat[]) {
  Deno.test(`cpio ${format}: a whole archive passes, whatever the chunking, padded to 512 or not`, () => {
    for (const block of [0, 512]) {
      const bytes = cpioArchive(entries(), format, block);
      for (const step of [0, 1, 3, 7, 110, 111, 4096]) assert.equal(verdict(bytes, step), null, `step ${step}`);
    }
    // Empty files, names of every padding length.
    const odd = [entries()[0], ...["a", "ab", "abc", "abcd"].map((name) => ({ name, data: enc.encode(name) })), {
      name: "empty",
      data: new Uint8Array(0),
    }];
    assert.equal(verdict(cpioArchive(odd, format, 0), 1), null);
  });

  Deno.test(`cpio ${format}: every truncation is refused, never passed`, () => {
    const bytes = cpioArchive(entries(), format, 0);
    for (let n = 0; n < bytes.length; n++) {
      const problem = verdict(bytes.subarray(0, n), 5);
      assert.notEqual(problem, null, `cut at ${n}`);
    }
    assert.match(
      verdict(bytes.subarray(0, bytes.length - 8))!,
      /before its cpio trailer \(TRAILER!!!\): it is truncated/,
    );
    assert.equal(verdict(new Uint8Array(0)), "it is empty");
  });
}

Deno.test("cpio: the first entry must be sw-description", () => {
  const [desc, sig, image] = entries();
  assert.equal(
    verdict(cpioArchive([image, desc, sig])),
    'its first entry is "image.bin", not sw-description',
  );
  assert.equal(verdict(cpioArchive([])), 'its first entry is "TRAILER!!!", not sw-description');
});

Deno.test("cpio: bad headers are refused in words", () => {
  const bytes = cpioArchive(entries(), "070702", 0);
  assert.match(verdict(enc.encode("PK\x03\x04 not a cpio"))!, /not a cpio archive in the newc or crc format/);
  // An old binary/odc cpio (070707) is not read by SWUpdate.
  const odc = bytes.slice();
  odc.set(enc.encode("070707"));
  assert.match(verdict(odc)!, /does not start with 070701 or 070702/);
  const badMagic = bytes.slice();
  badMagic.set(enc.encode("07070X"), SECOND_HEADER);
  assert.equal(verdict(badMagic), `the cpio header at byte ${SECOND_HEADER} has no valid magic (070701 or 070702)`);
  const mixed = bytes.slice();
  mixed.set(enc.encode("070701"), SECOND_HEADER);
  assert.match(verdict(mixed)!, /is 070701 in an archive of 070702 headers/);
  assert.equal(
    verdict(setField(bytes, 0, 6, "0000002G")),
    "the cpio header at byte 0 has a field (filesize) that is not 8 hexadecimal digits",
  );
  assert.match(verdict(setField(bytes, 0, 0, " 0000001"))!, /field \(ino\) that is not 8 hexadecimal digits/);
  assert.match(verdict(setField(bytes, 0, 11, "00000001"))!, /name size of 1 \(SWUpdate reads names of 1 to 254/);
  assert.match(verdict(setField(bytes, 0, 11, "00000100"))!, /name size of 256/);
  // A name size one too long: the NUL is not the name's last byte.
  assert.match(verdict(setField(bytes, 0, 11, "00000010"))!, /not ended by its NUL/);
});

Deno.test("cpio: a damaged file's crc, non-zero padding and bytes after the trailer are refused", () => {
  const image = enc.encode("image bytes ".repeat(37));
  const bytes = cpioArchive(entries(image), "070702", 0);
  const at = bytes.lastIndexOf(image[image.length - 1], bytes.length - 130);
  const flipped = bytes.slice();
  flipped[at] ^= 0x01;
  assert.equal(verdict(flipped), 'the content of "image.bin" does not match its cpio checksum (the file is damaged)');
  // The newc format has no checksum: the same flip passes there (SWUpdate checks the image's sha256 itself).
  const newc = cpioArchive(entries(image), "070701", 0);
  const newcFlipped = newc.slice();
  newcFlipped[newc.lastIndexOf(image[image.length - 1], newc.length - 130)] ^= 0x01;
  assert.equal(verdict(newcFlipped), null);

  // "sw-description" + NUL is 15 bytes after the 110-byte header: one padding byte at 125.
  const pad = bytes.slice();
  pad[125] = 0x20;
  assert.equal(verdict(pad), 'the padding after the cpio entry "sw-description" (at byte 0) is not zero (byte 125)');

  const tail = new Uint8Array([...cpioArchive(entries(image)), 0, 0, 0x41]);
  assert.match(verdict(tail)!, /bytes other than padding follow its cpio trailer \(at byte \d+\)/);
  assert.equal(verdict(new Uint8Array([...cpioArchive(entries(image)), ...new Uint8Array(1000)])), null);
});

Deno.test("cpio: bit flips anywhere are refused or harmless, and the parser never throws", () => {
  const bytes = cpioArchive(entries(), "070702");
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  // Where each header starts: the walk SWUpdate makes.
  const headers: number[] = [];
  /** The names other than the first and the trailer's: any non-NUL byte is a valid name there. */
  const freeNames: [number, number][] = [];
  for (let at = 0; at < bytes.length;) {
    headers.push(at);
    const field = (f: number) =>
      parseInt(new TextDecoder().decode(bytes.subarray(at + 6 + 8 * f, at + 14 + 8 * f)), 16);
    const name = new TextDecoder().decode(bytes.subarray(at + 110, at + 110 + field(11) - 1));
    if (name === "TRAILER!!!") break;
    if (at > 0) freeNames.push([at + 110, at + 110 + field(11) - 1]);
    const dataStart = Math.ceil((at + 110 + field(11)) / 4) * 4;
    at = Math.ceil((dataStart + field(6)) / 4) * 4;
  }
  // Fields whose value is read: filesize (6), namesize (11), check (12); the others only need to be hex digits.
  const unread = (at: number, byte: number) =>
    headers.some((h) =>
      at >= h + 6 && at < h + 110 && ![6, 11, 12].includes(Math.floor((at - h - 6) / 8)) &&
      /^[0-9a-fA-F]$/.test(String.fromCharCode(byte))
    ) || freeNames.some(([from, to]) => at >= from && at < to && byte !== 0);
  let refused = 0;
  for (let n = 0; n < 3000; n++) {
    const copy = bytes.slice();
    const at = Math.floor(random() * bytes.length);
    copy[at] ^= 1 << Math.floor(random() * 8);
    const problem = verdict(copy, 1 + Math.floor(random() * 300));
    if (problem !== null) refused++;
    // In a crc archive a flip that passes can only have turned an unread field's digit into another hex digit,
    // changed a hex letter's case, or renamed a later entry.
    else {
      const sameDigit = String.fromCharCode(copy[at]).toLowerCase() === String.fromCharCode(bytes[at]).toLowerCase();
      assert.ok(unread(at, copy[at]) || sameDigit, `a flip at ${at} passed`);
    }
  }
  console.log(`bit flips refused: ${refused} of 3000 (the rest changed an unread header digit or a later name)`);
});

Deno.test("startSwuCheck: refused resolves as soon as the problem is seen; finish gives the verdict", async () => {
  const check = startSwuCheck();
  let early: string | null = null;
  check.refused.then((p) => early = p);
  assert.equal(check.write(enc.encode("0707")), null);
  assert.equal(check.write(enc.encode("0X")), null);
  await Promise.resolve();
  assert.match(early!, /not a cpio archive/);

  const ok = startSwuCheck();
  const bytes = cpioArchive(entries());
  for (let i = 0; i < bytes.length; i += 100) ok.write(bytes.subarray(i, i + 100));
  assert.equal(await ok.finish(), null);

  const cut = startSwuCheck();
  cut.write(bytes.subarray(0, 300));
  assert.match((await cut.finish())!, /truncated/);
});
