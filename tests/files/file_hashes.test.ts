/**
 * A firmware file's digests (server/files/file_hashes.ts): OpenSSL through FFI where it loads, node:crypto otherwise.
 * Both give the reference digests (known vectors, and node:crypto's of the whole) under any chunking.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { fileHashes, hashEngine } from "../../server/files/file_hashes.ts";

const reference = (bytes: Uint8Array) => ({
  sha256: createHash("sha256").update(bytes).digest("hex"),
  sha1: createHash("sha1").update(bytes).digest("hex"),
  md5: createHash("md5").update(bytes).digest("hex"),
});

function digestsOf(engine: "openssl" | "node:crypto", bytes: Uint8Array, step: number) {
  const hashes = fileHashes(engine);
  if (step <= 0) hashes.update(bytes);
  else for (let at = 0; at < bytes.length; at += step) hashes.update(bytes.subarray(at, at + step));
  return hashes.digest();
}

const engines = ["node:crypto", ...(hashEngine() === "openssl" ? ["openssl" as const] : [])] as const;

Deno.test("the digests' engine is OpenSSL wherever libcrypto.so.3 is installed", () => {
  console.log(`  hashing with ${hashEngine()}`);
  if (Deno.build.os === "linux") {
    let present = false;
    for (const dir of ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib"]) {
      try {
        Deno.statSync(`${dir}/libcrypto.so.3`);
        present = true;
      } catch { /* not there */ }
    }
    if (present) assert.equal(hashEngine(), "openssl");
  }
});

for (const engine of engines) {
  Deno.test(`${engine}: known vectors`, () => {
    assert.deepEqual(digestsOf(engine, new Uint8Array(0), 0), {
      sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      sha1: "da39a3ee5e6b4b0d3255bfef95601890afd80709",
      md5: "d41d8cd98f00b204e9800998ecf8427e",
    });
    assert.deepEqual(digestsOf(engine, new TextEncoder().encode("abc"), 1), {
      sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      sha1: "a9993e364706816aba3e25717850c26c9cd0d89d",
      md5: "900150983cd24fb0d6963f7d28e17f72",
    });
  });

  Deno.test(`${engine}: any chunking gives node:crypto's digests of the whole`, () => {
    const bytes = new Uint8Array(3 * 1024 * 1024 + 17);
    for (let at = 0; at < bytes.length; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536));
    const whole = reference(bytes);
    for (const step of [0, 1000, 65536, 1 << 20, 1_500_001]) assert.deepEqual(digestsOf(engine, bytes, step), whole);
  });
}

Deno.test("hashes dropped before their digest (an aborted upload) leave the others working", () => {
  for (let i = 0; i < 100; i++) fileHashes().update(new Uint8Array(1000));
  const bytes = new TextEncoder().encode("after");
  assert.deepEqual(digestsOf(hashEngine(), bytes, 2), reference(bytes));
});
