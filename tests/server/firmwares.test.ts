import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type ApiClient, ApiError, DeviceClient, type UploadSource } from "../../shared/client.ts";
import { XZ_MAGIC } from "../../shared/schemas/firmware.ts";
import { bytesSource, fileSource, makeXzFile } from "../../testing/files.ts";
import { xzOfSize, xzStreamOfSize } from "../../testing/xz_fixtures.ts";
import { rejects } from "../helpers/assert.ts";
import { multipart } from "../helpers/hostile.ts";
import { DEVICE_API_KEY, listFiles, requestLinesWritten, startServer, type TestServer } from "../../testing/server.ts";
import { pathsFor } from "../../server/context.ts";
import { openStores, storesConfig } from "../../server/db/mod.ts";
import { diskFirmwareFiles } from "../../server/files/disk_firmware_files.ts";
import { addFirmware } from "../../server/firmware_storage.ts";
import { ApiHttpError } from "../../server/errors.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const XZ_HEAD = new Uint8Array(XZ_MAGIC);

/** A valid xz file of the xz magic and then `n` bytes, rounded up to whole 4-byte units as xz streams are. */
const xzLike = (n: number) => xzOfSize(Math.ceil((XZ_MAGIC.length + n) / 4) * 4);

async function postRaw(srv: TestServer, token: string, body: BodyInit, contentType?: string) {
  const headers: Record<string, string> = {};
  if (contentType) headers["content-type"] = contentType;
  const res = await srv.fetch("/api/v1/device_firmwares", { method: "POST", token, headers, body });
  return { status: res.status, json: await res.json() };
}

/** Snapshot of what a refused upload must not change: the list, the files, an empty tmp dir. */
async function snapshot(srv: TestServer, api: ApiClient) {
  return { list: await api.listFirmwares(), files: await listFiles(srv.dataDir) };
}

async function assertUnchanged(srv: TestServer, api: ApiClient, before: Awaited<ReturnType<typeof snapshot>>) {
  assert.deepEqual(await api.listFirmwares(), before.list);
  // The WAL's side files come and go with checkpoints: compare what matters.
  const files = (list: string[]) => list.filter((f) => !/-(wal|shm|journal)$/.test(f));
  assert.deepEqual(files(await listFiles(srv.dataDir)), files(before.files));
  assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
}

Deno.test("firmware upload, list, download and delete", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "fw-test-" });
  const uploaded: string[] = [];

  await t.step("201 with the entity; size and sha256 match the file; listed", async () => {
    const path = await makeXzFile(dir, "first.xz", "firmware one ".repeat(1000));
    const bytes = await Deno.readFile(path);
    const fw = await api.uploadFirmware(await fileSource(path));
    assert.equal(fw.name, "first.xz");
    assert.equal(fw.size, bytes.byteLength);
    assert.equal(fw.sha256, sha256(bytes));
    assert.ok(fw._id.length > 0);
    assert.ok(Math.abs(Date.parse(fw.createdAt) - Date.now()) < 60_000);
    assert.deepEqual(await api.listFirmwares(), [fw]);
    assert.deepEqual(await srv.storedFirmwares(), [`${fw._id}.xz`]);
    assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
    uploaded.push(fw._id);
  });

  await t.step("the list is newest first", async () => {
    for (const name of ["second.xz", "third.XZ"]) {
      const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, name)));
      uploaded.push(fw._id);
    }
    const list = await api.listFirmwares();
    assert.deepEqual(list.map((f) => f._id), [...uploaded].reverse());
    assert.deepEqual(list.map((f) => f.name), ["third.XZ", "second.xz", "first.xz"]);
  });

  await t.step("415 for a wrong extension, wrong magic, an empty file, a non-multipart body", async () => {
    const before = await snapshot(srv, api);
    const xz = await Deno.readFile(await makeXzFile(dir, "real.xz"));
    await rejects(api.uploadFirmware(bytesSource("firmware.bin", xz)), 415, /\.xz/);
    await rejects(api.uploadFirmware(bytesSource("firmware.xz.zip", xz)), 415);
    await rejects(api.uploadFirmware(bytesSource(".xz", xz)), 415);
    await rejects(api.uploadFirmware(bytesSource("fake.xz", new TextEncoder().encode("not xz at all"))), 415, /xz/);
    await rejects(api.uploadFirmware(bytesSource("short.xz", XZ_HEAD.subarray(0, 5))), 415);
    await rejects(api.uploadFirmware(bytesSource("empty.xz", new Uint8Array())), 415);
    for (const type of ["application/octet-stream", "application/json", undefined]) {
      const { status, json } = await postRaw(srv, api.token, xz, type);
      assert.equal(status, 415, `content-type ${type}`);
      assert.equal(json.error, "unsupported_media_type");
      assert.match(json.msg, /multipart/);
    }
    await assertUnchanged(srv, api, before);
  });

  await t.step("409 for a name already uploaded", async () => {
    const before = await snapshot(srv, api);
    await rejects(api.uploadFirmware(bytesSource("first.xz", xzLike(100))), 409, /first\.xz/);
    // Names are compared exactly: the same name in another case is a different firmware file.
    await assertUnchanged(srv, api, before);
  });

  await t.step("two concurrent uploads of one new name: one 201, one 409, one file", async () => {
    const big = xzLike(4 * 1024 * 1024);
    const results = await Promise.allSettled([
      api.uploadFirmware(bytesSource("race.xz", big)),
      api.uploadFirmware(bytesSource("race.xz", big)),
    ]);
    const ok = results.filter((r) => r.status === "fulfilled");
    const failed = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    assert.equal(ok.length, 1);
    assert.equal(failed.length, 1);
    assert.equal((failed[0].reason as ApiError).status, 409);
    const list = await api.listFirmwares();
    assert.equal(list.filter((f) => f.name === "race.xz").length, 1);
    assert.deepEqual(await srv.storedFirmwares(), list.map((f) => `${f._id}.xz`).sort());
    assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
  });

  await t.step("400 for a missing field, malformed multipart and a truncated body", async () => {
    const before = await snapshot(srv, api);
    const b = "test-boundary-123";
    const type = `multipart/form-data; boundary=${b}`;
    const body = xzLike(1000);
    const cases: [string, BodyInit, string][] = [
      ["no file at all", multipart(b, [{ name: "note", data: "hello" }]), type],
      ["file under another field", multipart(b, [{ name: "upload", filename: "x.xz", data: body }]), type],
      [
        "two files",
        multipart(b, [{ name: "file", filename: "a.xz", data: body }, { name: "file", filename: "b.xz", data: body }]),
        type,
      ],
      ["no boundary", multipart(b, [{ name: "file", filename: "x.xz", data: body }]), "multipart/form-data"],
      ["garbage", "this is not multipart", type],
      ["empty body", "", type],
      ["truncated", multipart(b, [{ name: "file", filename: "x.xz", data: body }]).subarray(0, 600), type],
      [
        "no closing boundary",
        multipart(b, [{ name: "file", filename: "x.xz", data: body }]).slice(0, -(b.length + 6)),
        type,
      ],
      ["empty file name", multipart(b, [{ name: "file", filename: "", data: body }]), type],
    ];
    for (const [what, payload, contentType] of cases) {
      const { status, json } = await postRaw(srv, api.token, payload, contentType);
      assert.equal(status, 400, `${what}: ${JSON.stringify(json)}`);
      assert.equal(json.error, "invalid_request", what);
      assert.equal(typeof json.msg, "string");
    }
    await assertUnchanged(srv, api, before);
  });

  await t.step("a connection dropped mid-upload leaves no row and no file", async () => {
    const before = await snapshot(srv, api);
    const posts = () => srv.output().split("POST /api/v1/device_firmwares ").length;
    await requestLinesWritten(srv); // request lines are written in batches: every earlier POST counted
    const postsBefore = posts();
    const b = "drop-boundary";
    const part = multipart(b, [{ name: "file", filename: "dropped.xz", data: xzLike(2_000_000) }]);
    const conn = await Deno.connect({ hostname: new URL(srv.url).hostname, port: Number(new URL(srv.url).port) });
    const head = `POST /api/v1/device_firmwares HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\n` +
      `Content-Type: multipart/form-data; boundary=${b}\r\nContent-Length: ${part.byteLength}\r\n\r\n`;
    await conn.write(new TextEncoder().encode(head));
    await conn.write(part.subarray(0, 1_000_000));
    conn.close();
    // The server notices the drop asynchronously: wait for the request's log line (the handler has finished).
    for (let i = 0; i < 200 && posts() === postsBefore; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(posts(), postsBefore + 1, "the server never finished the dropped request");
    await assertUnchanged(srv, api, before);
  });

  await t.step("a client name with path separators is stored as its base name, inside firmwares/", async () => {
    const outside = await listFiles(srv.dataDir);
    const storedBefore = await srv.storedFirmwares();
    const a = await api.uploadFirmware(bytesSource("../../escape.xz", xzLike(100)));
    assert.equal(a.name, "escape.xz");
    const b = await api.uploadFirmware(bytesSource("a\\b.xz", xzLike(100)));
    assert.equal(b.name, "b.xz");
    const c = await api.uploadFirmware(bytesSource("/etc/passwd.xz", xzLike(100)));
    assert.equal(c.name, "passwd.xz");
    const added = (await listFiles(srv.dataDir)).filter((f) => !outside.includes(f) && !/-(wal|shm)$/.test(f));
    const stored = (await srv.storedFirmwares()).filter((f) => !storedBefore.includes(f));
    assert.deepEqual(stored, [a, b, c].map((f) => `${f._id}.xz`).sort());
    // Nothing else anywhere in DATA_DIR (on disk the files are those just listed).
    assert.deepEqual(added.filter((f) => !f.startsWith("firmwares/")), []);
    for (const name of ["escape.xz", "b.xz", "passwd.xz"]) {
      await assert.rejects(Deno.stat(`${srv.dataDir}/../../${name}`), Deno.errors.NotFound);
      await assert.rejects(Deno.stat(`${srv.dataDir}/${name}`), Deno.errors.NotFound);
    }
  });

  await t.step("download: identical bytes, attachment with the name, type and length", async () => {
    const path = await makeXzFile(dir, 'Ünïcode "quoted" fw.xz', "x".repeat(300_000));
    const bytes = await Deno.readFile(path);
    const fw = await api.uploadFirmware(await fileSource(path));
    const res = await api.firmwareFile(fw._id);
    assert.equal(res.headers.get("content-type"), "application/x-xz");
    assert.equal(res.headers.get("content-length"), String(bytes.byteLength));
    const disposition = res.headers.get("content-disposition")!;
    assert.match(disposition, /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
    assert.equal(decodeURIComponent(disposition.split("UTF-8''")[1]), fw.name);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
    const plain = await api.firmwareFile(uploaded[0]);
    assert.match(plain.headers.get("content-disposition")!, /^attachment; filename="first\.xz"/);
    await plain.body?.cancel();
    await rejects(api.firmwareFile("no-such-id"), 404);
  });

  await t.step("delete: 409 while a device type's default, 204 after unsetting, file gone", async () => {
    const [type] = await api.listDeviceTypes();
    const id = uploaded[1];
    await api.patchDeviceType({ _id: type._id, defaultFirmware: id });
    const before = await snapshot(srv, api);
    await rejects(api.deleteFirmware(id), 409, new RegExp(`second\\.xz.*default firmware of device type ${type.name}`));
    await assertUnchanged(srv, api, before);
    await api.patchDeviceType({ _id: type._id, defaultFirmware: null });
    await api.deleteFirmware(id);
    assert.ok(!(await api.listFirmwares()).some((f) => f._id === id));
    assert.ok(!(await srv.storedFirmwares()).includes(`${id}.xz`));
    await rejects(api.firmwareFile(id), 404);
    await rejects(api.deleteFirmware(id), 404);
  });

  await t.step("delete: 409 naming the device count while devices use it as custom firmware", async () => {
    const id = uploaded[2];
    for (const deviceId of ["fw-dev-1", "fw-dev-2"]) {
      await new DeviceClient(deviceId, { baseUrl: srv.url, apiKey: DEVICE_API_KEY })
        .checkin({ versionInfo: { app: "1", os: "1", channels: [] } });
      await api.patchDevice({ deviceId, firmware: id });
    }
    const before = await snapshot(srv, api);
    await rejects(api.deleteFirmware(id), 409, /custom firmware of 2 devices/);
    await api.patchDevice({ deviceId: "fw-dev-1", firmware: null });
    await rejects(api.deleteFirmware(id), 409, /custom firmware of 1 device\b/);
    await assertUnchanged(srv, api, before);
    await api.deleteDevice("fw-dev-2");
    await api.deleteFirmware(id);
    assert.ok(!(await srv.storedFirmwares()).includes(`${id}.xz`));
  });

  await t.step("every firmware route needs a token", async () => {
    for (
      const [method, path] of [
        ["GET", "/api/v1/device_firmwares"],
        ["POST", "/api/v1/device_firmwares"],
        ["GET", `/api/v1/device_firmwares/${uploaded[0]}/file`],
        ["DELETE", `/api/v1/device_firmwares/${uploaded[0]}`],
      ]
    ) {
      const res = await srv.fetch(path, { method });
      assert.equal(res.status, 401, `${method} ${path}`);
      await res.body?.cancel();
    }
    assert.ok((await api.listFirmwares()).some((f) => f._id === uploaded[0]));
  });

  await Deno.remove(dir, { recursive: true });
});

Deno.test("firmware size limit (MAX_FIRMWARE_BYTES) with and without Content-Length", async (t) => {
  const LIMIT = 10_000;
  await using srv = await startServer({ env: { MAX_FIRMWARE_BYTES: String(LIMIT) } });
  const api = await srv.login();

  await t.step("exactly the limit is accepted", async () => {
    const fw = await api.uploadFirmware(bytesSource("at-limit.xz", xzLike(LIMIT - XZ_MAGIC.length)));
    assert.equal(fw.size, LIMIT);
  });

  await t.step("413 one byte over, declared length within the multipart allowance", async () => {
    const before = await snapshot(srv, api);
    await rejects(
      api.uploadFirmware(bytesSource("over.xz", xzLike(LIMIT - XZ_MAGIC.length + 1))),
      413,
      /10000 bytes/,
    );
    await assertUnchanged(srv, api, before);
  });

  await t.step("413 refused upfront from a large declared Content-Length", async () => {
    const before = await snapshot(srv, api);
    await rejects(api.uploadFirmware(bytesSource("huge.xz", xzLike(2_000_000))), 413, /MAX_FIRMWARE_BYTES/);
    await assertUnchanged(srv, api, before);
  });

  await t.step("411 for a body sent chunked (no Content-Length), nothing stored", async () => {
    const before = await snapshot(srv, api);
    const boundary = "chunked-boundary";
    const body = multipart(boundary, [{ name: "file", filename: "chunked.xz", data: xzLike(200_000) }]);
    const chunks = Array.from(
      { length: Math.ceil(body.byteLength / 8192) },
      (_, i) => body.subarray(i * 8192, (i + 1) * 8192),
    );
    const res = await srv.fetch("/api/v1/device_firmwares", {
      method: "POST",
      token: api.token,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: ReadableStream.from(chunks),
    });
    assert.equal(res.status, 411);
    const json = await res.json();
    assert.equal(json.error, "length_required");
    assert.match(json.msg, /Content-Length/);
    await assertUnchanged(srv, api, before);
  });
});

/** Bytes streamed from a generator (never held whole), hashed locally on the way. */
function generatedSource(name: string, size: number) {
  const hash = createHash("sha256");
  const source: UploadSource = {
    name,
    size,
    stream: () => {
      const parts = xzStreamOfSize(size);
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await parts.next();
          if (done) return controller.close();
          hash.update(value);
          controller.enqueue(value);
        },
      });
    },
  };
  return { source, digest: () => hash.digest("hex") };
}

function procStatusBytes(pid: number, field: "VmHWM" | "VmRSS"): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  assert.ok(m, `${field} missing`);
  return Number(m[1]) * 1024;
}

Deno.test("a 256 MiB upload keeps the server's memory flat", async () => {
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet" } });
  const api = await srv.login();
  const pid = srv.process.pid;
  const MiB = 1024 * 1024;
  const SIZE = 256 * MiB;
  const idle = procStatusBytes(pid, "VmRSS");
  let sampled = idle;
  const sampler = setInterval(() => sampled = Math.max(sampled, procStatusBytes(pid, "VmRSS")), 20);
  const { source, digest } = generatedSource("big.xz", SIZE);
  const fw = await api.uploadFirmware(source).finally(() => clearInterval(sampler));
  assert.equal(fw.size, SIZE);
  assert.equal(fw.sha256, digest());
  assert.ok((await srv.storedFirmwares()).includes(`${fw._id}.xz`));
  // Buffering the file would add its 256 MiB; streaming adds only bounded GC slack (~80-100 MiB, measured).
  const growth = sampled - idle;
  const peak = procStatusBytes(pid, "VmHWM");
  const info = `idle ${Math.round(idle / MiB)} MiB, +${Math.round(growth / MiB)} MiB, peak ${
    Math.round(peak / MiB)
  } MiB`;
  console.log(`256 MiB upload: ${info}`);
  assert.ok(growth < SIZE / 2, info);
  assert.ok(peak < 220 * MiB, info);
});

Deno.test("addFirmware (for the demo seed and scripts) follows the upload's rules and layout", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "fw-add-" });
  const paths = pathsFor(dataDir);
  for (const d of [paths.firmwares, paths.tmp]) await Deno.mkdir(d, { recursive: true });
  const stores = await openStores(storesConfig(paths));
  try {
    const bytes = xzLike(500);
    const files = diskFirmwareFiles(paths);
    const fw = await addFirmware(stores.firmwares, files, "seed.xz", bytes);
    assert.deepEqual(fw, { ...fw, name: "seed.xz", size: bytes.byteLength, sha256: sha256(bytes) });
    assert.deepEqual(await Deno.readFile(`${paths.firmwares}/${fw._id}.xz`), bytes);
    const refused = async (name: string, data: Uint8Array, status: number) => {
      const err = await addFirmware(stores.firmwares, files, name, data).then(() => null, (e) => e);
      assert.ok(err instanceof ApiHttpError && err.status === status, `${name}: ${err}`);
    };
    await refused("seed.xz", bytes, 409);
    await refused("seed.bin", bytes, 415);
    await refused("plain.xz", new TextEncoder().encode("plain"), 415);
    await refused("junk.xz", new Uint8Array([...XZ_MAGIC, 1, 2, 3, 4, 5, 6]), 422);
    assert.deepEqual(await stores.firmwares.list(), [fw]);
    assert.deepEqual(await listFiles(paths.firmwares), [`${fw._id}.xz`]);
    assert.deepEqual(await listFiles(paths.tmp), []);
  } finally {
    await stores.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
