/** Over HTTP against the real server: an upload is a complete, valid xz file or 422 and nothing is stored. */
import assert from "node:assert/strict";
import type { ApiClient } from "../../shared/client.ts";

type Api = ApiClient & { token: string };
import { bytesSource, fileSource, makeXzFile } from "../../testing/files.ts";
import { listFiles, startServer, type TestServer } from "../../testing/server.ts";
import { brokenXz, concat, xzBytes, xzOfSize } from "../../testing/xz_fixtures.ts";

/** The firmware list and every file under DATA_DIR/firmwares and DATA_DIR/tmp. */
async function stored(srv: TestServer, api: Api) {
  return {
    list: await api.listFirmwares(),
    firmwares: await srv.storedFirmwares(),
    tmp: await listFiles(`${srv.dataDir}/tmp`),
  };
}

async function post(srv: TestServer, api: Api, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  const res = await srv.fetch("/api/v1/device_firmwares", { method: "POST", token: api.token, body: form });
  return { status: res.status, json: await res.json() };
}

Deno.test("an upload that is not a complete, valid xz file is 422 invalid_firmware and nothing is stored", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "fw-check-" });
  const valid = xzBytes(new Uint8Array(300_000).map((_, i) => (i * 131) & 0xff));
  const compressed = await Deno.readFile(await makeXzFile(dir, "real.xz", "real firmware ".repeat(20_000)));
  const kept = await api.uploadFirmware(bytesSource("kept.xz", xzOfSize(4096)));

  const cases: [string, Uint8Array, RegExp][] = [
    ["a truncated stream", brokenXz.truncated(valid), /ends before its xz stream does/],
    ["a truncated compressed stream", brokenXz.truncated(compressed), /ends before its xz stream does|corrupt/],
    ["a flipped byte mid-block (the CRC64 check fails)", brokenXz.flippedMidBlock(valid), /integrity check/],
    ["a flipped byte mid-block (SHA-256)", brokenXz.flippedMidBlock(xzBytes(valid, "sha256")), /corrupt/],
    ["a flipped byte mid-block (CRC32)", brokenXz.flippedMidBlock(xzBytes(valid, "crc32")), /corrupt/],
    ["a bad stream footer", brokenXz.badFooter(valid), /footer/],
    ["a valid stream followed by garbage", brokenXz.trailingGarbage(valid), /not xz follow the stream/],
    ["a compressed stream followed by garbage", brokenXz.trailingGarbage(compressed), /corrupt|stray bytes/],
    ["the xz magic then 2 MB of random bytes", brokenXz.magicThenRandom(2_000_000), /corrupt/],
    ["an empty stream", xzBytes(""), /holds no data/],
    ["a stream without an integrity check", xzBytes(valid, "none"), /no integrity check/],
  ];
  for (const [what, bytes, problem] of cases) {
    await t.step(what, async () => {
      const before = await stored(srv, api);
      const { status, json } = await post(srv, api, "broken-1.0.xz", bytes);
      assert.equal(status, 422, `${what}: ${JSON.stringify(json)}`);
      assert.equal(json.error, "invalid_firmware");
      assert.match(json.msg, /^broken-1\.0\.xz is not a valid xz file: /);
      assert.match(json.msg, problem);
      assert.doesNotMatch(json.msg, /stdin|\/usr\/bin/);
      assert.deepEqual(await stored(srv, api), before);
    });
  }

  await t.step("the shared client reports the 422 with the server's message", async () => {
    const err = await api.uploadFirmware(bytesSource("junk.xz", brokenXz.magicThenRandom(1000))).catch((e) => e);
    assert.equal(err.status, 422);
    assert.equal(err.code, "invalid_firmware");
    assert.match(err.message, /junk\.xz is not a valid xz file/);
  });

  await t.step("valid files are 201: stored chunks with each check, compressed, concatenated, padded", async () => {
    const accepted: [string, Uint8Array][] = [
      ["crc32.xz", xzBytes("crc32 firmware", "crc32")],
      ["crc64.xz", xzBytes("crc64 firmware", "crc64")],
      ["sha256.xz", xzBytes("sha256 firmware", "sha256")],
      ["compressed.xz", compressed],
      ["two-streams.xz", concat([xzBytes("part one"), xzBytes("part two")])],
      ["padded.xz", concat([xzBytes("padded"), new Uint8Array(8)])],
    ];
    for (const [name, bytes] of accepted) {
      const fw = await api.uploadFirmware(bytesSource(name, bytes));
      assert.equal(fw.size, bytes.byteLength, name);
      assert.equal(fw.duplicateOf, undefined, name);
    }
    const names = (await api.listFirmwares()).map((f) => f.name);
    for (const [name] of accepted) assert.ok(names.includes(name), name);
  });

  await t.step("a refusal mid-stream answers early and leaves nothing behind", async () => {
    const before = await stored(srv, api);
    // 20 MB whose first block is already corrupt: xz stops reading at once, the server answers without the rest.
    const bytes = concat([brokenXz.flippedMidBlock(valid), brokenXz.magicThenRandom(20_000_000)]);
    const { status, json } = await post(srv, api, "early.xz", bytes).catch(() => ({ status: 0, json: null }));
    // The client may see the connection closed before it has sent everything; either way nothing is stored.
    if (status !== 0) assert.equal(status, 422, JSON.stringify(json));
    assert.deepEqual(await stored(srv, api), before);
  });

  assert.ok((await api.listFirmwares()).some((f) => f._id === kept._id));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the same bytes under another name: 201 with duplicateOf the first firmware holding them", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "fw-dup-" });
  try {
    const path = await makeXzFile(dir, "fw-1.0.xz", "the firmware");
    const first = await api.uploadFirmware(await fileSource(path));
    assert.equal(first.duplicateOf, undefined);
    assert.equal("duplicateOf" in first, false);
    const second = await api.uploadFirmware(await fileSource(path, "fw-1.0-copy.xz"));
    assert.equal(second.duplicateOf, first._id);
    assert.equal(second.sha256, first.sha256);
    const third = await api.uploadFirmware(await fileSource(path, "fw-1.0-again.xz"));
    assert.equal(third.duplicateOf, first._id, "the oldest firmware with those bytes");
    // The list shows plain firmwares; all three are stored.
    const list = await api.listFirmwares();
    assert.deepEqual(list.map((f) => f.name), ["fw-1.0-again.xz", "fw-1.0-copy.xz", "fw-1.0.xz"]);
    assert.ok(list.every((f) => !("duplicateOf" in f)));
    const other = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-2.0.xz", "another")));
    assert.equal(other.duplicateOf, undefined);
    // Once the first is deleted, the next upload of the bytes names the oldest that remains.
    await api.deleteFirmware(first._id);
    const fourth = await api.uploadFirmware(await fileSource(path, "fw-1.0-fourth.xz"));
    assert.equal(fourth.duplicateOf, second._id);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
