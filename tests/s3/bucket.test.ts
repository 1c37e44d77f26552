/**
 * What only a bucket does (docs/REQUIREMENTS.md §10): presigned redirects that honour Range, and a bucket that goes away and comes
 * back (503 fast, the rest of the console working, recovery without a restart). The firmware rules of §5 and §6 run on
 * a bucket too: scripts/test.ts runs the firmware suites with TEST_FIRMWARE_STORE=s3.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { startBucket } from "../../testing/s3.ts";
import { bytesSource } from "../../testing/files.ts";
import { DdiDevice, linkedAction } from "../../testing/ddi.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { xzOfSize } from "../../testing/xz_fixtures.ts";

const device = { authorization: `Bearer ${DEVICE_API_KEY}` };

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await p;
  return { value, ms: performance.now() - started };
}

Deno.test("a bucket: redirects to presigned URLs that honour Range; a bucket down is 503 fast and recovers", async (t) => {
  await using bucket = await startBucket();
  await using srv = await startServer({
    bucket,
    env: { FIRMWARE_DOWNLOAD: "redirect", FIRMWARE_URL_TTL_SECONDS: "60" },
  });
  const api = await srv.login();
  const bytes = xzOfSize(6 << 20); // larger than one part: a real multipart upload
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const fw = await api.uploadFirmware(bytesSource("bucket.xz", bytes));
  assert.equal(fw.sha256, sha256);
  assert.deepEqual(await srv.storedFirmwares(), [`${fw._id}.xz`]);
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });
  await srv.fetch("/api/v1/device/bucket-1/checkin", {
    method: "POST",
    headers: { ...device, "content-type": "application/json" },
    body: JSON.stringify({ versionInfo: { app: "1", os: "1", channels: [] } }),
  });

  await t.step(
    "redirect: 302 to a presigned URL with the ETag; the URL serves the bytes and resumes with Range",
    async () => {
      const res = await srv.fetch("/api/v1/device/bucket-1/firmware", { headers: device, redirect: "manual" });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("etag"), `"${sha256}"`);
      const url = res.headers.get("location")!;
      assert.match(url, new RegExp(`^${bucket.endpoint}/firmware-test/firmwares/${fw._id}\\.xz\\?.*X-Amz-Signature=`));
      const whole = await fetch(url);
      assert.equal(whole.status, 200);
      assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), bytes);
      const part = await fetch(url, { headers: { Range: "bytes=1000-" } });
      assert.equal(part.status, 206);
      assert.deepEqual(new Uint8Array(await part.arrayBuffer()), bytes.subarray(1000));
      const cached = await srv.fetch("/api/v1/device/bucket-1/firmware", {
        headers: { ...device, "if-none-match": `"${sha256}"` },
        redirect: "manual",
      });
      assert.equal(cached.status, 304);
      await cached.body?.cancel();
    },
  );

  await t.step("hawkBit DDI: sha1 and md5 from the bucket's put; the artifact is a 302 to the bucket", async () => {
    const dev = new DdiDevice(srv.url, "bucket-ddi", `GatewayToken ${DEVICE_API_KEY}`);
    const actionId = linkedAction(await dev.poll(), "deploymentBase");
    const deployment = await dev.call("GET", `/deploymentBase/${actionId}`);
    const artifact = deployment.json.deployment.chunks[0].artifacts[0];
    const hash = (algorithm: string) => createHash(algorithm).update(bytes).digest("hex");
    assert.deepEqual(artifact.hashes, { sha1: hash("sha1"), md5: hash("md5"), sha256 });
    const res = await fetch(artifact._links.download.href, {
      headers: { authorization: dev.authorization! },
      redirect: "manual",
    });
    assert.equal(res.status, 302);
    await res.body?.cancel();
    const whole = await fetch(res.headers.get("location")!);
    assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), bytes);
  });

  await t.step("the operator's download streams from the bucket", async () => {
    const res = await srv.fetch(`/api/v1/device_firmwares/${fw._id}/file`, { token: api.token });
    assert.equal(res.status, 200);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
  });

  await t.step(
    "bucket down: /healthz and firmware calls 503 within 2 s; the rest works; back up: recovered",
    async () => {
      await bucket.stop();
      const health = await timed(srv.fetch("/healthz"));
      assert.equal(health.value.status, 503);
      assert.equal((await health.value.json()).status, "unavailable");
      assert.ok(health.ms < 2_000, `healthz took ${health.ms} ms`);
      for (
        const call of [
          () => srv.fetch(`/api/v1/device_firmwares/${fw._id}/file`, { token: api.token }),
          () => srv.fetch("/api/v1/device/bucket-1/firmware", { headers: device, redirect: "manual" }),
          () =>
            api.uploadFirmware(bytesSource("while-down.xz", xzOfSize(4096))).then(() => new Response(null), (e) => e),
        ]
      ) {
        const { value, ms } = await timed(call());
        const status = value instanceof Response ? value.status : value.status;
        // A presigned URL is made without a request to the bucket: the redirect itself still works.
        if (value instanceof Response && status === 302) continue;
        assert.equal(status, 503, `a firmware call answered ${status}`);
        assert.ok(ms < 2_000, `a firmware call took ${ms} ms`);
        if (value instanceof Response) assert.equal((await value.json()).error, "unavailable");
      }
      assert.equal((await api.listFirmwares()).length, 1, "the upload while down stored nothing");
      assert.ok((await api.listDevices()).total >= 1, "the rest of the console works");

      await bucket.start();
      assert.equal((await srv.fetch("/healthz")).status, 200);
      const res = await srv.fetch(`/api/v1/device_firmwares/${fw._id}/file`, { token: api.token });
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
    },
  );
});

Deno.test("FIRMWARE_DOWNLOAD=redirect without S3_BUCKET stops the start with one line", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "server/main.ts"],
    cwd: new URL("../../", import.meta.url).pathname,
    env: { PORT: "0", FIRMWARE_DOWNLOAD: "redirect", S3_BUCKET: "", DATA_DIR: await Deno.makeTempDir() },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  assert.equal(
    new TextDecoder().decode(out.stderr),
    "Invalid configuration: FIRMWARE_DOWNLOAD=redirect needs S3_BUCKET (firmware in a bucket).\n",
  );
});
