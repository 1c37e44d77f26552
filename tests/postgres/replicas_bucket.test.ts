/**
 * The whole of docs/REQUIREMENTS.md §10 at once: PostgreSQL, a bucket and several servers sharing nothing else. A firmware
 * uploaded through A is downloaded through B by a device (proxied, then redirected to the bucket and resumed with
 * Range), deleted through B, and gone from A's list and from the bucket.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { testDatabaseUrl } from "../../testing/postgres.ts";
import { startBucket } from "../../testing/s3.ts";
import { bytesSource } from "../../testing/files.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { xzOfSize } from "../../testing/xz_fixtures.ts";

const device = { authorization: `Bearer ${DEVICE_API_KEY}` };

Deno.test("replicas on PostgreSQL and a bucket: upload through A, download through B, delete through B", async () => {
  await using bucket = await startBucket();
  const DATABASE_URL = await testDatabaseUrl();
  await using a = await startServer({ bucket, env: { DATABASE_URL } });
  await using b = await startServer({ bucket, env: { DATABASE_URL } });
  await using bRedirect = await startServer({ bucket, env: { DATABASE_URL, FIRMWARE_DOWNLOAD: "redirect" } });

  const onA = await a.login();
  const bytes = xzOfSize(7 << 20);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const fw = await onA.uploadFirmware(bytesSource("replicas.xz", bytes));
  const managed = (await onA.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await onA.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });

  const checkin = await b.fetch("/api/v1/device/rep-1/checkin", {
    method: "POST",
    headers: { ...device, "content-type": "application/json" },
    body: JSON.stringify({ versionInfo: { app: "1", os: "1", channels: [] } }),
  });
  assert.equal((await checkin.json()).firmware._id, fw._id);

  // Proxied through B: whole, then resumed from the middle.
  const whole = await b.fetch("/api/v1/device/rep-1/firmware", { headers: device });
  assert.equal(whole.headers.get("etag"), `"${sha256}"`);
  assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), bytes);
  const half = bytes.length >> 1;
  const rest = await b.fetch("/api/v1/device/rep-1/firmware", { headers: { ...device, range: `bytes=${half}-` } });
  assert.equal(rest.status, 206);
  assert.deepEqual(new Uint8Array(await rest.arrayBuffer()), bytes.subarray(half));

  // Redirected by the other B: the bucket serves it and honours Range.
  const moved = await bRedirect.fetch("/api/v1/device/rep-1/firmware", { headers: device, redirect: "manual" });
  assert.equal(moved.status, 302);
  const location = moved.headers.get("location")!;
  const resumed = await fetch(location, { headers: { range: `bytes=${half}-` } });
  assert.equal(resumed.status, 206);
  assert.deepEqual(new Uint8Array(await resumed.arrayBuffer()), bytes.subarray(half));

  const onB = await b.login();
  await onB.patchDeviceType({ _id: managed._id, defaultFirmware: null });
  await onB.deleteFirmware(fw._id);
  assert.deepEqual(await onA.listFirmwares(), []);
  assert.deepEqual(await bucket.keys("firmwares/"), []);
});
