/** The benchmark steps; each returns the figures it measured. */
import { createHash } from "node:crypto";
import * as z from "zod";
import { chromium } from "playwright-core";
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { directTreatmentSerializer, seedDevices, writeImportFile } from "../../testing/sqlite_bench.ts";
import { CHROMIUM_LAUNCH } from "../../testing/chromium.ts";
import { fileSource } from "../../testing/files.ts";
import { writeXzFile } from "../../testing/xz_fixtures.ts";
import type { TestPostgres } from "../../testing/postgres.ts";
import { seedPostgresDevices } from "../../testing/postgres_bench.ts";
import { gzipSize, load, type LoadResult, ROOT, sequential, spawnServer, timed } from "./util.ts";

export { seedDevices };

export const ADMIN = { email: "bench@example.com", password: "bench-password-1" };
export const DEVICE_KEY = "bench-device-key-0123456789";

export function serverEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    DEVICE_API_KEY: DEVICE_KEY,
    MAX_FIRMWARE_BYTES: String(2 * 1024 ** 3),
    LOG_LEVEL: "info",
  };
}

/**
 * The server's env for `n` seeded devices: in `dataDir` (SQLite), or with `pg` in a new database of it (PostgreSQL;
 * its schema made by a first start of the server of the tree at `root`).
 */
export async function seededEnv(
  dataDir: string,
  pg: TestPostgres | undefined,
  n: number,
  root = ROOT,
): Promise<Record<string, string>> {
  const env = serverEnv(dataDir);
  if (!pg) {
    seedDevices(dataDir, n);
    return env;
  }
  const withDb = { ...env, DATABASE_URL: await pg.createDatabase() };
  await (await spawnServer("server/main.ts", withDb, root)).stop();
  await seedPostgresDevices(withDb.DATABASE_URL, 0, n);
  return withDb;
}

/** A server started with `env`, signed in as the bench's admin, for `fn`; stopped afterwards. */
export interface SignedInServer {
  api: ApiClient;
  url: string;
  token: string;
}

export async function withSignedInServer<T>(
  env: Record<string, string>,
  fn: (srv: SignedInServer) => Promise<T>,
): Promise<T> {
  const srv = await spawnServer("server/main.ts", env);
  try {
    const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
    const api = new ApiClient({
      baseUrl: srv.url,
      token: () => token,
      timeoutMs: 600_000,
      uploadFetch: fixedLengthFetch,
    });
    return await fn({ api, url: srv.url, token });
  } finally {
    await srv.stop();
  }
}

export interface DevicesFigures {
  /** Bare Hono answering the same page bytes as a constant (the goal's baseline). */
  baseline: LoadResult;
  /** Bare Hono answering a 50-byte constant JSON. */
  tiny: LoadResult;
  middle: LoadResult;
  last: LoadResult;
  search: LoadResult;
  pageBytes: number;
}

export async function benchDevices(url: string, token: string, n: number, seconds: number): Promise<DevicesFigures> {
  const auth = { Authorization: `Bearer ${token}` };
  const lastPage = Math.max(0, Math.ceil(n / 25) - 1);
  const middlePage = Math.floor(lastPage / 2);
  const path = `/api/v1/devices?page=${middlePage}&rowsPerPage=25`;
  const body = await (await fetch(`${url}${path}`, { headers: auth })).text();
  const bodyFile = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(bodyFile, body);
  const bare = await spawnServer("scripts/bench/bare_server.ts", { BODY_FILE: bodyFile });
  const connections = 10;
  // The bare page is measured half before and half after the middle page, so the machine's drift falls on both.
  const half = Math.max(1, Math.round(seconds / 2));
  let baseline: LoadResult, tiny: LoadResult, middle: LoadResult;
  try {
    await load(`${bare.url}${path}`, 1, connections); // warm-up
    const before = await load(`${bare.url}${path}`, half, connections);
    tiny = await load(`${bare.url}/tiny`, seconds, connections);
    await load(`${url}${path}`, 1, connections, auth); // warm-up
    middle = await load(`${url}${path}`, seconds, connections, auth);
    baseline = sequential(before, await load(`${bare.url}${path}`, half, connections));
  } finally {
    await bare.stop();
    await Deno.remove(bodyFile);
  }
  const last = await load(`${url}/api/v1/devices?page=${lastPage}&rowsPerPage=25`, seconds, connections, auth);
  const search = await load(`${url}/api/v1/devices?page=0&rowsPerPage=25&q=0042`, seconds, connections, auth);
  return { baseline, tiny, middle, last, search, pageBytes: new TextEncoder().encode(body).length };
}

export interface TreatmentsFigures {
  importMs: number;
  rawInsertMs: number;
  listMs: number;
  listBytes: number;
  serializeMs: number;
  count: number;
}

export async function benchTreatments(
  api: ApiClient,
  url: string,
  token: string,
  dataDir: string,
  tmpDir: string,
  n: number,
): Promise<TreatmentsFigures> {
  const file = `${tmpDir}/bench-import.sqlite3`;
  const rawInsertMs = writeImportFile(file, n, 10, 4);
  const source = await fileSource(file);
  const imported = await timed(() => api.importTreatments(source));
  if (imported.value.imported !== n) throw new Error(`import reported ${imported.value.imported}, expected ${n}`);

  const get = async () => {
    const res = await fetch(`${url}/api/v1/treatments`, { headers: { Authorization: `Bearer ${token}` } });
    return (await res.arrayBuffer()).byteLength;
  };
  await get(); // warm-up
  const runs = 5;
  let listMs = 0, listBytes = 0;
  for (let i = 0; i < runs; i++) {
    const r = await timed(get);
    listMs += r.ms / runs;
    listBytes = r.value;
  }

  // Baseline: the same rows read and serialized directly, in this process.
  const direct = directTreatmentSerializer(dataDir);
  direct.serialize();
  let serializeMs = 0;
  for (let i = 0; i < runs; i++) serializeMs += (await timed(direct.serialize)).ms / runs;
  direct.close();
  return { importMs: imported.ms, rawInsertMs, listMs, listBytes, serializeMs, count: n };
}

export interface FirmwareFigures {
  bytes: number;
  uploadMs: number;
  cpMs: number;
  /** The same multipart upload, same client, to a bare Hono route that discards the body. */
  bareHttpMs: number;
  /** sha256 of the file, streamed (the server hashes every upload). */
  hashMs: number;
  /** `xz -t` of the file alone (the server tests every upload with it while it streams). */
  xzTestMs: number;
  peakRss: number;
  idleRss: number;
  /** Device check-ins on the same server, idle and while the same file is uploaded again. */
  checkinIdle: LoadResult;
  checkinDuringUpload: LoadResult;
  secondUploadMs: number;
}

/**
 * Uploads a valid xz file of `bytes` (stored chunks of pseudo-random bytes, CRC32: what xz makes of data it cannot
 * shrink) to a fresh server (so its peak RSS is the upload's), and times `cp`, sha256 and `xz -t` of it. Then
 * device check-ins on that server: idle, and while the same file is uploaded again under another name.
 */
export async function benchFirmware(
  tmpDir: string,
  bytes: number,
  checkinConnections = 20,
): Promise<FirmwareFigures> {
  const dataDir = await Deno.makeTempDir({ dir: tmpDir, prefix: "fw-data-" });
  const file = `${tmpDir}/bench-firmware.xz`;
  bytes = await writeXzFile(file, bytes);

  const cp = await timed(() => new Deno.Command("cp", { args: [file, `${file}.copy`] }).output());
  await Deno.remove(`${file}.copy`);
  const hash = await timed(async () => {
    const h = createHash("sha256");
    for await (const chunk of (await Deno.open(file)).readable) h.update(chunk);
    return h.digest("hex");
  });
  const xzTest = await timed(async () => {
    const out = await new Deno.Command("xz", { args: ["-t", file] }).output();
    if (!out.success) throw new Error("the bench file is not a valid xz file");
  });
  const bare = await spawnServer("scripts/bench/bare_server.ts", {});
  let bareHttpMs: number;
  try {
    const drained = await timed(async () =>
      await new ApiClient({ baseUrl: bare.url, uploadFetch: fixedLengthFetch }).upload(
        z.object({ bytes: z.number() }),
        "../../drain",
        await fileSource(file),
      )
    );
    if (drained.value.bytes < bytes) throw new Error("bare upload lost bytes");
    bareHttpMs = drained.ms;
  } finally {
    await bare.stop();
  }

  const srv = await spawnServer("server/main.ts", serverEnv(dataDir));
  try {
    const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
    const api = new ApiClient({ baseUrl: srv.url, token: () => token, uploadFetch: fixedLengthFetch });
    const idleRss = Number(/VmRSS:\s+(\d+) kB/.exec(await Deno.readTextFile(`/proc/${srv.pid}/status`))?.[1]) * 1024;
    await srv.resetPeak(); // start-up (scrypt of the admin password, the bundle check) is not the upload
    const up = await timed(async () => api.uploadFirmware(await fileSource(file)));
    if (up.value.size !== bytes) throw new Error("upload size mismatch");
    const peakRss = await srv.peakRss();
    // Check-ins for about as long as an upload takes, idle, then with the upload running alongside.
    const seconds = Math.max(1, Math.ceil(up.ms / 1000));
    const checkinIdle = await benchCheckin(srv.url, seconds, checkinConnections);
    const during = benchCheckin(srv.url, seconds, checkinConnections);
    await new Promise((r) => setTimeout(r, 300)); // the load tool's start-up
    const second = await timed(async () => api.uploadFirmware(await fileSource(file, "bench-firmware-again.xz")));
    if (second.value.duplicateOf !== up.value._id) throw new Error("the second upload is not reported as duplicate");
    return {
      bytes,
      uploadMs: up.ms,
      cpMs: cp.ms,
      bareHttpMs,
      hashMs: hash.ms,
      xzTestMs: xzTest.ms,
      peakRss,
      idleRss,
      checkinIdle,
      checkinDuringUpload: await during,
      secondUploadMs: second.ms,
    };
  } finally {
    await srv.stop();
    await Deno.remove(file);
    await Deno.remove(dataDir, { recursive: true });
  }
}

export async function benchCheckin(url: string, seconds: number, connections: number): Promise<LoadResult> {
  const body = JSON.stringify({ versionInfo: { app: "2.4.1", os: "5.10.0", channels: ["1.2", "1.2"] } });
  return await load(
    `${url}/api/v1/device/bench-[<id>]/checkin`,
    seconds,
    connections,
    { Authorization: `Bearer ${DEVICE_KEY}`, "Content-Type": "application/json" },
    ["--method", "POST", "--body", body],
  );
}

export interface WebFigures {
  signIn: { js: number; css: number; files: number };
  devices: { js: number; css: number; files: number };
}

/** The JS and CSS a browser loads for the sign-in page and for the devices page, gzipped. */
export async function benchWeb(url: string, token: string, tmpDir: string): Promise<WebFigures> {
  const profile = await Deno.makeTempDir({ dir: tmpDir, prefix: "chromium-" });
  const ctx = await chromium.launchPersistentContext(profile, CHROMIUM_LAUNCH);
  try {
    const measure = async (path: string, withToken: boolean) => {
      const page = await ctx.newPage();
      const seen: Promise<{ type: string; size: number }>[] = [];
      page.on("response", (res) => {
        const type = res.request().resourceType();
        if (type === "script" || type === "stylesheet") {
          seen.push(res.body().then((b) => ({ type, size: gzipSize(new Uint8Array(b)) })));
        }
      });
      if (withToken) {
        await page.addInitScript((t) => localStorage.setItem("accessToken", t), token);
      }
      await page.goto(`${url}${path}`, { waitUntil: "networkidle" });
      const files = await Promise.all(seen);
      await page.close();
      return {
        js: files.filter((f) => f.type === "script").reduce((a, f) => a + f.size, 0),
        css: files.filter((f) => f.type === "stylesheet").reduce((a, f) => a + f.size, 0),
        files: files.length,
      };
    };
    const signIn = await measure("/", false);
    const devices = await measure("/devices", true);
    return { signIn, devices };
  } finally {
    await ctx.close();
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

export { ROOT };
