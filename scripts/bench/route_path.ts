/**
 * The request path's own cost, in process (no socket, no load generator): GET /api/v1/devices through the real app
 * (auth, role check, validation, the page cache warm) against a bare Hono route answering the same bytes, for an
 * admin's session and for a viewer's API token (the role and scope checks). Prints µs per request and the ratio.
 *   deno run -A scripts/bench/route_path.ts [requests]
 */
import { Hono } from "hono";
import { diskFirmwareFiles } from "../../server/files/disk_firmware_files.ts";
import { createApp } from "../../server/app.ts";
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

  const time = async (label: string, one: () => Response | Promise<Response>) => {
    for (let i = 0; i < 2000; i++) await (await one()).arrayBuffer(); // warm-up
    const started = performance.now();
    for (let i = 0; i < N; i++) {
      const res = await one();
      if (res.status !== 200) throw new Error(`${label}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    const us = (performance.now() - started) * 1000 / N;
    return { label, us };
  };
  const rows = [
    await time("bare Hono", () => bare.request("/api/v1/devices")),
    await time("GET devices, admin session", () => json("/api/v1/devices", {}, token)),
    await time("GET devices, viewer session", () => json("/api/v1/devices", {}, viewer.token)),
    await time("GET devices, read API token", () => json("/api/v1/devices", {}, apiToken.token)),
  ];
  const base = rows[0].us;
  for (const r of rows) {
    console.log(`${r.label.padEnd(30)} ${r.us.toFixed(1).padStart(7)} µs/request  ×${(r.us / base).toFixed(2)}`);
  }
} finally {
  await stores.close();
  await Deno.remove(dataDir, { recursive: true });
}
