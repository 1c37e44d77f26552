/**
 * Firmware in a bucket (docs/REQUIREMENTS.md §10): the same 1 GiB upload to a server whose firmware store is an S3 bucket (s3rver,
 * testing/s3.ts) against the disk's figure of the same run, and a device's download of it served by the console
 * (FIRMWARE_DOWNLOAD=proxy) or by the bucket through a presigned URL (redirect).
 */
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { fileSource } from "../../testing/files.ts";
import { startBucket } from "../../testing/s3.ts";
import { ADMIN, DEVICE_KEY, serverEnv } from "./steps.ts";
import { spawnServer, timed } from "./util.ts";
import { writeXzFile } from "../../testing/xz_fixtures.ts";

export interface BucketFigures {
  uploadMs: number;
  peakRss: number;
  proxyMs: number;
  redirectMs: number;
}

export async function benchBucket(tmpDir: string, bytes: number): Promise<BucketFigures> {
  const file = `${tmpDir}/bench-bucket-firmware.xz`;
  bytes = await writeXzFile(file, bytes);
  await using bucket = await startBucket();
  const dataDir = await Deno.makeTempDir({ dir: tmpDir, prefix: "bucket-data-" });
  const device = { Authorization: `Bearer ${DEVICE_KEY}` };
  const servers = [];
  try {
    const proxy = await spawnServer("server/main.ts", { ...serverEnv(dataDir), ...bucket.env });
    servers.push(proxy);
    const { token } = await new ApiClient({ baseUrl: proxy.url }).login(ADMIN.email, ADMIN.password);
    const api = new ApiClient({ baseUrl: proxy.url, token: () => token, uploadFetch: fixedLengthFetch });
    await proxy.resetPeak();
    const up = await timed(async () => api.uploadFirmware(await fileSource(file)));
    if (up.value.size !== bytes) throw new Error("bucket upload size mismatch");
    const peakRss = await proxy.peakRss();
    const managed = (await api.listDeviceTypes()).find((d) => d.name.startsWith("jeecee_baby_"))!;
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: up.value._id });

    await fetch(`${proxy.url}/api/v1/device/bench-dl/checkin`, {
      method: "POST",
      headers: { ...device, "Content-Type": "application/json" },
      body: JSON.stringify({ versionInfo: { app: "1", os: "1", channels: [] } }),
    }).then((r) => r.body?.cancel());
    const download = async (url: string) => {
      const res = await fetch(`${url}/api/v1/device/bench-dl/firmware`, { headers: device });
      let n = 0;
      for await (const chunk of res.body!) n += chunk.length;
      if (n !== bytes) throw new Error(`downloaded ${n} of ${bytes} bytes`);
    };
    const proxyMs = (await timed(() => download(proxy.url))).ms;
    await proxy.stop();
    // The same data served with redirects: fetch follows the 302 to the bucket.
    const redirect = await spawnServer("server/main.ts", {
      ...serverEnv(dataDir),
      ...bucket.env,
      FIRMWARE_DOWNLOAD: "redirect",
    });
    servers.push(redirect);
    const redirectMs = (await timed(() => download(redirect.url))).ms;
    return { uploadMs: up.ms, peakRss, proxyMs, redirectMs };
  } finally {
    for (const s of servers) await s.stop();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(file);
  }
}
