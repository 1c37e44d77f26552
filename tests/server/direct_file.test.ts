/** Firmware files written past the page cache (server/files/direct_file.ts): exact bytes and size at every alignment. */
import assert from "node:assert/strict";
import fs from "node:fs";
import { createFileOut } from "../../server/files/direct_file.ts";

/** Whether this file system takes O_DIRECT, asked without the module under test. */
function takesDirect(dir: string): boolean {
  const path = `${dir}/probe`;
  Deno.writeFileSync(path, new Uint8Array(0));
  try {
    fs.closeSync(fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_DIRECT));
    return true;
  } catch {
    return false;
  } finally {
    Deno.removeSync(path);
  }
}

/** Bytes that differ at every offset (a misplaced block shows). */
function pattern(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 7 + (i >> 12) * 13 + seed) & 0xff;
  return out;
}

Deno.test("direct file: every size and chunking reads back exactly, direct where the file system allows, else buffered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "direct-file-" });
  const MiB = 1 << 20;
  try {
    const direct = takesDirect(dir);
    console.log(`O_DIRECT on ${dir}: ${direct ? "taken" : "refused"}`);
    let n = 0;
    for (const buffered of [false, true]) {
      for (const size of [0, 1, 511, 4095, 4096, 4097, MiB - 1, MiB, MiB + 1, 3 * MiB + 4099]) {
        for (const chunk of [1000, 65_536, MiB, 3 * MiB]) {
          const bytes = pattern(size, n);
          const path = `${dir}/${n++}.xz`;
          const out = createFileOut(path, { buffered });
          assert.equal(out.direct, direct && !buffered);
          for (let off = 0; off < size; off += chunk) {
            const piece = bytes.slice(off, off + chunk);
            out.write(piece);
            piece.fill(0xee); // the writer copied what it keeps
          }
          out.finish();
          out.close();
          out.close(); // idempotent
          const back = await Deno.readFile(path);
          assert.equal(back.length, size, `${size} bytes in ${chunk}-byte writes, buffered: ${buffered}`);
          assert.ok(back.every((b, i) => b === bytes[i]), `${size} bytes in ${chunk}-byte writes: same bytes`);
          assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
          await Deno.remove(path);
        }
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("direct file: an existing file is an error and is left as it was", async () => {
  const dir = await Deno.makeTempDir({ prefix: "direct-file-" });
  try {
    const path = `${dir}/taken.xz`;
    await Deno.writeTextFile(path, "kept");
    assert.throws(() => createFileOut(path), Deno.errors.AlreadyExists);
    assert.equal(await Deno.readTextFile(path), "kept");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
