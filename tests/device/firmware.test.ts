import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DeviceClient } from "../../shared/client.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";

const VERSION = { app: "1.0.0", os: "os", channels: [] };

Deno.test("device firmware download", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "device-fw-" });

  // ~300 KB of incompressible bytes, so the download spans many reads and ranges are meaningful
  const random = new Uint8Array(300_000);
  for (let i = 0; i < random.length; i += 65_536) crypto.getRandomValues(random.subarray(i, i + 65_536));
  const path = await makeXzFile(dir, "big-fw-1.0.xz", random);
  const bytes = await Deno.readFile(path);
  const size = bytes.length;
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const fw = await api.uploadFirmware(await fileSource(path));
  assert.equal(fw.sha256, sha256);
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;

  const get = (deviceId: string, headers: Record<string, string> = {}, method = "GET") =>
    srv.fetch(`/api/v1/device/${deviceId}/firmware`, {
      method,
      headers: { ...headers, authorization: `Bearer ${DEVICE_API_KEY}` },
    });
  const checkin = (deviceId: string) =>
    srv.fetch(`/api/v1/device/${deviceId}/checkin`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEVICE_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ versionInfo: VERSION }),
    }).then((r) => r.json());

  await t.step("404 for an unknown device and when no firmware applies", async () => {
    const unknown = await get("nobody-1");
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error, "not_found");
    await checkin("fw-1");
    const none = await get("fw-1");
    assert.equal(none.status, 404);
    assert.match((await none.json()).msg, /firmware/i);
  });

  await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });

  await t.step("the whole file with ETag, Accept-Ranges and Content-Length", async () => {
    const res = await get("fw-1");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("etag"), `"${sha256}"`);
    assert.equal(res.headers.get("accept-ranges"), "bytes");
    assert.equal(res.headers.get("content-length"), String(size));
    assert.equal(res.headers.get("content-range"), null);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
  });

  await t.step("HEAD answers the headers without a body", async () => {
    const res = await get("fw-1", {}, "HEAD");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("etag"), `"${sha256}"`);
    assert.equal(res.headers.get("content-length"), String(size));
    assert.equal((await res.arrayBuffer()).byteLength, 0);
  });

  await t.step("If-None-Match with the ETag gives 304 without a body; another tag gives the file", async () => {
    for (const tag of [`"${sha256}"`, `W/"${sha256}"`, `"other", "${sha256}"`, "*"]) {
      const res = await get("fw-1", { "if-none-match": tag });
      assert.equal(res.status, 304, tag);
      assert.equal(res.headers.get("etag"), `"${sha256}"`);
      assert.equal((await res.arrayBuffer()).byteLength, 0);
    }
    const client = new DeviceClient("fw-1", { baseUrl: srv.url, apiKey: DEVICE_API_KEY });
    const notModified = await client.firmware({ "If-None-Match": `"${sha256}"` });
    assert.equal(notModified.status, 304);
    assert.equal((await notModified.arrayBuffer()).byteLength, 0);
    const ranged = await client.firmware({ Range: "bytes=0-3" });
    assert.equal(ranged.status, 206);
    assert.deepEqual(new Uint8Array(await ranged.arrayBuffer()), bytes.subarray(0, 4));
    const other = await get("fw-1", { "if-none-match": `"0000"` });
    assert.equal(other.status, 200);
    assert.equal((await other.arrayBuffer()).byteLength, size);
  });

  await t.step("two ranges reassemble the file byte for byte", async () => {
    const cut = 123_457;
    const first = await get("fw-1", { range: `bytes=0-${cut - 1}` });
    assert.equal(first.status, 206);
    assert.equal(first.headers.get("content-range"), `bytes 0-${cut - 1}/${size}`);
    assert.equal(first.headers.get("content-length"), String(cut));
    assert.equal(first.headers.get("etag"), `"${sha256}"`);
    const second = await get("fw-1", { range: `bytes=${cut}-` });
    assert.equal(second.status, 206);
    assert.equal(second.headers.get("content-range"), `bytes ${cut}-${size - 1}/${size}`);
    const joined = new Uint8Array([
      ...new Uint8Array(await first.arrayBuffer()),
      ...new Uint8Array(await second.arrayBuffer()),
    ]);
    assert.equal(joined.length, size);
    assert.equal(createHash("sha256").update(joined).digest("hex"), sha256);
    assert.deepEqual(joined, bytes);
  });

  await t.step("suffix ranges, ranges past the end and a one-byte range", async () => {
    const suffix = await get("fw-1", { range: "bytes=-500" });
    assert.equal(suffix.status, 206);
    assert.equal(suffix.headers.get("content-range"), `bytes ${size - 500}-${size - 1}/${size}`);
    assert.deepEqual(new Uint8Array(await suffix.arrayBuffer()), bytes.subarray(size - 500));

    const whole = await get("fw-1", { range: `bytes=-${size + 10}` });
    assert.equal(whole.status, 206);
    assert.equal(whole.headers.get("content-range"), `bytes 0-${size - 1}/${size}`);
    assert.equal((await whole.arrayBuffer()).byteLength, size);

    const tail = await get("fw-1", { range: `bytes=${size - 10}-${size + 1000}` });
    assert.equal(tail.status, 206);
    assert.equal(tail.headers.get("content-range"), `bytes ${size - 10}-${size - 1}/${size}`);
    assert.deepEqual(new Uint8Array(await tail.arrayBuffer()), bytes.subarray(size - 10));

    const one = await get("fw-1", { range: "bytes=7-7" });
    assert.equal(one.status, 206);
    assert.deepEqual(new Uint8Array(await one.arrayBuffer()), bytes.subarray(7, 8));
  });

  await t.step("a range unit other than bytes is ignored: 200 with the whole file (RFC 9110 §14.2)", async () => {
    const res = await get("fw-1", { range: "items=0-5" });
    assert.equal(res.status, 200);
    assert.equal((await res.arrayBuffer()).byteLength, size);
  });

  await t.step("unsatisfiable or malformed ranges get 416 with Content-Range bytes */size", async () => {
    for (
      const range of [
        `bytes=${size}-`,
        `bytes=${size + 5}-${size + 9}`,
        "bytes=-0",
        "bytes=9-2",
        "bytes=abc",
        "bytes=",
        "bytes=-",
      ]
    ) {
      const res = await get("fw-1", { range });
      assert.equal(res.status, 416, range);
      assert.equal(res.headers.get("content-range"), `bytes */${size}`, range);
      const body = await res.json();
      assert.equal(body.error, "range_not_satisfiable");
    }
  });

  await t.step("several ranges or a stale If-Range give the whole file", async () => {
    const multi = await get("fw-1", { range: "bytes=0-10,20-30" });
    assert.equal(multi.status, 200);
    assert.equal((await multi.arrayBuffer()).byteLength, size);
    const stale = await get("fw-1", { range: "bytes=0-10", "if-range": `"0000"` });
    assert.equal(stale.status, 200);
    assert.equal((await stale.arrayBuffer()).byteLength, size);
    const fresh = await get("fw-1", { range: "bytes=0-10", "if-range": `"${sha256}"` });
    assert.equal(fresh.status, 206);
    assert.equal((await fresh.arrayBuffer()).byteLength, 11);
  });

  await t.step("a device's custom firmware is what it downloads", async () => {
    const customPath = await makeXzFile(dir, "custom-fw.xz", "custom build");
    const custom = await api.uploadFirmware(await fileSource(customPath));
    await checkin("fw-2");
    await api.patchDevice({ deviceId: "fw-2", firmware: custom._id });
    const res = await get("fw-2");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("etag"), `"${custom.sha256}"`);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), await Deno.readFile(customPath));
    const other = await get("fw-1");
    assert.equal(other.headers.get("etag"), `"${sha256}"`);
    await other.body?.cancel();
  });

  await t.step("a download cancelled half way leaves the server fine", async () => {
    const res = await get("fw-1");
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    const again = await get("fw-1");
    assert.equal((await again.arrayBuffer()).byteLength, size);
  });

  await t.step("no firmware file stays open after full, ranged, HEAD, 304, 416 and cancelled downloads", async () => {
    const openFirmwareFiles = async () => {
      let n = 0;
      for await (const fd of Deno.readDir(`/proc/${srv.process.pid}/fd`)) {
        const target = await Deno.readLink(`/proc/${srv.process.pid}/fd/${fd.name}`).catch(() => "");
        if (target.startsWith(`${srv.dataDir}/firmwares/`)) n++;
      }
      return n;
    };
    for (let i = 0; i < 50 && await openFirmwareFiles() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await openFirmwareFiles(), 0);
  });

  await t.step("the key is still required", async () => {
    const res = await srv.fetch("/api/v1/device/fw-1/firmware");
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });

  await Deno.remove(dir, { recursive: true });
});
