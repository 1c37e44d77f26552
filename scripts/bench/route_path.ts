/**
 * The request path's own cost, in process (no socket, no load generator): GET /api/v1/devices through the real app
 * (auth, role check, validation, the page cache warm) against a bare Hono route answering the same bytes, for an
 * admin's and a viewer's session and a read API token (the role and scope checks). Prints µs per request (wall and
 * this process's CPU) and the ratio to bare Hono.
 *   deno run -A scripts/bench/route_path.ts [requests]
 */
import process from "node:process";
import { Hono } from "hono";
import { diskFirmwareFiles } from "../../server/files/disk_firmware_files.ts";
import { createApp, SECURITY_HEADERS } from "../../server/app.ts";
import { bootstrapOperator, ensureDirectories } from "../../server/bootstrap.ts";
import { parseConfig } from "../../server/config.ts";
import { pathsFor } from "../../server/context.ts";
import { openStores, storesConfig } from "../../server/db/mod.ts";

const N = Number(Deno.args[0] ?? 20_000);
const ADMIN = { email: "admin@example.com", password: "admin-password-1" };
const dataDir = await Deno.makeTempDir({ prefix: "route-path-bench-" });
const config = parseConfig({
  DATA_DIR: dataDir,
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  DEVICE_API_KEY: "route-path-bench-key-0123",
  PRODUCT: "bench",
  LOG_LEVEL: "quiet",
});
const paths = pathsFor(dataDir);
await ensureDirectories(paths);
const stores = await openStores(storesConfig(paths));
try {
  await stores.deviceTypes.ensure("bench");
  await bootstrapOperator(stores.operators, config, () => {});
  for (let i = 0; i < 25; i++) {
    await stores.deviceApi.checkin(
      `dev-${String(i).padStart(3, "0")}`,
      { app: "1.0.0", os: "1.0", channels: [] },
      "bench",
    );
  }
  const app = createApp({
    config,
    stores,
    files: diskFirmwareFiles(paths),
    secret: "route-path-bench-secret-0123456789-0123456789",
    paths,
    log: () => {},
    logRequest: () => {},
  });
  const json = (path: string, init: RequestInit = {}, token?: string) =>
    app.request(path, {
      ...init,
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
  const { token } = await (await json("/api/v1/login", { method: "POST", body: JSON.stringify(ADMIN) })).json();
  await json("/api/v1/operators", {
    method: "POST",
    body: JSON.stringify({ email: "viewer@example.com", password: "viewer-password-1", role: "viewer" }),
  }, token);
  const viewer = await (await json("/api/v1/login", {
    method: "POST",
    body: JSON.stringify({ email: "viewer@example.com", password: "viewer-password-1" }),
  })).json();
  const apiToken = await (await json("/api/v1/api_tokens", {
    method: "POST",
    body: JSON.stringify({ name: "bench", scopes: ["read"] }),
  }, viewer.token)).json();
  const page = await (await json("/api/v1/devices", {}, token)).text();
  const bare = new Hono().get("/api/v1/devices", (c) => c.body(page, 200, { "Content-Type": "application/json" }));
  // The same, with the answer headers every answer of the app carries: beyond Content-Type, Deno leaves its fast path
  // for a 200 with a string body (what the security headers cost by themselves).
  const withHeaders = new Hono().get("/api/v1/devices", (c) => {
    for (const k in SECURITY_HEADERS) c.header(k, SECURITY_HEADERS[k]);
    c.header("X-Request-Id", crypto.randomUUID());
    c.header("Vary", "Accept-Encoding");
    return c.body(page, 200, { "Content-Type": "application/json" });
  });

  // Rounds of each case in turn, so a machine shared with other work slows them alike; CPU time of this process
  // beside the wall clock (less moved by other processes' load). The median round of each case is printed.
  const cases: [string, () => Response | Promise<Response>][] = [
    ["bare Hono", () => bare.request("/api/v1/devices")],
    ["bare Hono + the answer headers", () => withHeaders.request("/api/v1/devices")],
    ["GET devices, admin session", () => json("/api/v1/devices", {}, token)],
    ["GET devices, viewer session", () => json("/api/v1/devices", {}, viewer.token)],
    ["GET devices, read API token", () => json("/api/v1/devices", {}, apiToken.token)],
  ];
  const ROUNDS = 9;
  const per = Math.max(1, Math.round(N / ROUNDS));
  const wall: number[][] = cases.map(() => []);
  const cpu: number[][] = cases.map(() => []);
  for (const [, one] of cases) for (let i = 0; i < 1000; i++) await (await one()).arrayBuffer(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, [label, one]] of cases.entries()) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      for (let i = 0; i < per; i++) {
        const res = await one();
        if (res.status !== 200) throw new Error(`${label}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
      const used = process.cpuUsage(cpuStarted);
      wall[k].push((performance.now() - started) * 1000 / per);
      cpu[k].push((used.user + used.system) / per);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [baseWall, baseCpu] = [median(wall[0]), median(cpu[0])];
  for (const [k, [label]] of cases.entries()) {
    const [w, u] = [median(wall[k]), median(cpu[k])];
    console.log(
      `${label.padEnd(30)} wall ${w.toFixed(1).padStart(7)} µs ×${(w / baseWall).toFixed(2).padStart(5)}   cpu ${
        u.toFixed(1).padStart(7)
      } µs ×${(u / baseCpu).toFixed(2).padStart(5)}`,
    );
  }
} finally {
  await stores.close();
  await Deno.remove(dataDir, { recursive: true });
}
