/**
 * SWUpdate images (.swu) as firmware (CONTRACT §18): accepted when the whole cpio archive is valid, checked while it
 * streams; refused 422 invalid_firmware with what is wrong, nothing stored. Run on the disk and in a bucket.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { bytesSource } from "../../testing/files.ts";
import { listFiles, startServer } from "../../testing/server.ts";
import { buildSwu, cpioArchive, makeSigningKey } from "../../testing/swu.ts";
import { rejects } from "../helpers/assert.ts";
import { ApiError } from "../../shared/client.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const enc = new TextEncoder();

/** The upload is refused 422 invalid_firmware with a msg matching `msg`. */
async function invalid(p: Promise<unknown>, msg: RegExp, what: string) {
  const err = await p.then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `${what}: expected ApiError, got ${err}`);
  assert.equal(err.status, 422, `${what}: ${err.message}`);
  assert.equal(err.code, "invalid_firmware", what);
  assert.match(err.msg, msg, `${what}: ${err.msg}`);
}

Deno.test("firmware upload: SWUpdate images are checked whole while they stream", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "swu-upload-" });
  const signer = await makeSigningKey(dir);
  // A few MiB so the image arrives in many chunks.
  const image = new Uint8Array(3 << 20).map((_, i) => (i * 7919) >>> 3);
  const swu = await buildSwu({ signer, image, installTo: `${dir}/out.bin`, hardware: ["1.0"] });

  await t.step("201 for a signed image; stored, listed, downloaded as itself under its name", async () => {
    const fw = await api.uploadFirmware(bytesSource("therapy-2.0.0.swu", swu));
    assert.equal(fw.name, "therapy-2.0.0.swu");
    assert.equal(fw.size, swu.length);
    assert.equal(fw.sha256, sha256(swu));
    assert.equal((await srv.storedFirmwares()).length, 1);
    const res = await srv.fetch(`/api/v1/device_firmwares/${fw._id}/file`, { token: api.token });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/octet-stream");
    assert.match(res.headers.get("content-disposition") ?? "", /filename="therapy-2\.0\.0\.swu"/);
    assert.equal(sha256(new Uint8Array(await res.arrayBuffer())), sha256(swu));
    // Any case of the extension; the newc format (no checksums) too.
    const newc = cpioArchive([{ name: "sw-description", data: enc.encode("software = {};") }], "070701");
    assert.equal((await api.uploadFirmware(bytesSource("NEWC.SWU", newc))).size, newc.length);
  });

  await t.step("422 invalid_firmware for a damaged or incomplete image, nothing stored", async () => {
    const stored = await srv.storedFirmwares();
    const list = await api.listFirmwares();
    const flipped = swu.slice();
    flipped[swu.length - 4096] ^= 0x10; // inside image.bin
    const cases: [string, Uint8Array, RegExp][] = [
      ["cut.swu", swu.subarray(0, swu.length - 1000), /cut\.swu is not a valid SWUpdate image: .*truncated/],
      ["flip.swu", flipped, /"image\.bin" does not match its cpio checksum/],
      ["junk.swu", enc.encode("this is not a cpio archive"), /not a cpio archive/],
      ["odc.swu", enc.encode("070707" + "0".repeat(200)), /does not start with 070701 or 070702/],
      [
        "order.swu",
        cpioArchive([{ name: "image.bin", data: image.subarray(0, 100) }, {
          name: "sw-description",
          data: enc.encode("software = {};"),
        }]),
        /its first entry is "image\.bin", not sw-description/,
      ],
      ["tail.swu", concat(swu, [0x41]), /bytes other than padding follow its cpio trailer/],
    ];
    for (const [name, bytes, msg] of cases) {
      await invalid(api.uploadFirmware(bytesSource(name, bytes)), msg, name);
    }
    assert.deepEqual(await srv.storedFirmwares(), stored);
    assert.deepEqual(await api.listFirmwares(), list);
    assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
  });

  await t.step("415 names the extensions taken; an xz file named .swu is not an image", async () => {
    await rejects(api.uploadFirmware(bytesSource("image.swu.bin", swu)), 415, /must end in \.xz or \.swu/);
    await invalid(
      api.uploadFirmware(bytesSource("xz.swu", new Uint8Array([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0, 0, 4]))),
      /xz\.swu is not a valid SWUpdate image: it is not a cpio archive/,
      "xz.swu",
    );
  });
  await Deno.remove(dir, { recursive: true });
});

function concat(a: Uint8Array, more: number[]): Uint8Array {
  const out = new Uint8Array(a.length + more.length);
  out.set(a);
  out.set(more, a.length);
  return out;
}
