/**
 * What each piece of the fixed per-request work costs, in µs of this process's CPU time (steadier than the wall clock on
 * a shared machine) (the table of docs/PERFORMANCE.md,
 * "GET devices ≥ 0.5× a bare route"): each piece alone in a loop, beside a bare Hono request for scale.
 *   deno run -A scripts/bench/request_parts.ts [iterations=200000]
 */
import process from "node:process";
import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import { SECURITY_HEADERS } from "../../server/app.ts";
import { clientAddress } from "../../server/auth/client_address.ts";
import { requireRole } from "../../server/auth/roles.ts";
import { runAs, SYSTEM_ACTOR } from "../../server/db/audit_context.ts";
import { acceptedEncodings } from "../../server/lib/compress.ts";
import { requestIdFrom, withRequest } from "../../server/lib/request_context.ts";
import { urlTextProblem } from "../../server/lib/text_rule.ts";
import * as metrics from "../../server/metrics.ts";
import { parse } from "../../server/validate.ts";
import { bootstrapOperator, ensureDirectories } from "../../server/bootstrap.ts";
import { parseConfig } from "../../server/config.ts";
import { pathsFor } from "../../server/context.ts";
import { openStores, storesConfig } from "../../server/db/mod.ts";

const N = Number(Deno.args[0] ?? 200_000);
const url = "http://127.0.0.1:8080/api/v1/devices?page=1999&rowsPerPage=25";
const page = "x".repeat(9800);
const bare = new Hono().get("/api/v1/devices", (c) => c.body(page, 200, { "Content-Type": "application/json" }));
const fakeContext = { req: { header: () => undefined }, env: { remoteAddr: { hostname: "127.0.0.1" } } };
const roleCheck = requireRole(routes.listDevices);
const roleContext = { get: (k: string) => (k === "operator" ? { role: "admin" } : undefined) };

// The two database reads of a cached page, on SQLite (PostgreSQL: a round trip each).
const dataDir = await Deno.makeTempDir({ prefix: "request-parts-" });
const paths = pathsFor(dataDir);
await ensureDirectories(paths);
const stores = await openStores(storesConfig(paths));
const email = "parts@example.com";
await bootstrapOperator(
  stores.operators,
  parseConfig({
    DATA_DIR: dataDir,
    ADMIN_EMAIL: email,
    ADMIN_PASSWORD: "parts-password-1",
    DEVICE_API_KEY: "x".repeat(24),
  }),
  () => {},
);

const parts: [string, () => unknown][] = [
  ["bare Hono request (in process, for scale)", () => bare.request(url)],
  ["request id: new (crypto.randomUUID)", () => requestIdFrom(undefined)],
  ["request id: AsyncLocalStorage run", () => withRequest("id", () => 1)],
  ["security headers + request id: 5 sets on a Headers", () => {
    const h = new Headers();
    for (const k in SECURITY_HEADERS) h.set(k, SECURITY_HEADERS[k]);
    h.set("X-Request-Id", "0f6b1c1e-5d2a-4a55-9d7e-0c3f3c2f8a11");
  }],
  ["metrics: counter + histogram, labels by route", () => metrics.countRequest("/api/v1/devices", "GET", 200, 0.0004)],
  ["text rule on the URL (§17)", () => urlTextProblem(url)],
  ["audit actor: AsyncLocalStorage run", () => runAs({ actor: SYSTEM_ACTOR, ip: null }, () => 1)],
  // deno-lint-ignore no-explicit-any
  ["client address (audit ip)", () => clientAddress(fakeContext as any, false)],
  // deno-lint-ignore no-explicit-any
  ["role and scope check", () => roleCheck(roleContext as any, async () => {})],
  [
    "query validation (zod, defaults)",
    () => parse(routes.listDevices.query!, { page: "1999", rowsPerPage: "25" }, "query"),
  ],
  ["Accept-Encoding parse", () => acceptedEncodings("gzip, deflate, br")],
  ["operator lookup (SQLite read)", () => stores.operators.current(email)],
  ["devices' change counter (SQLite read)", () => stores.devices.version()],
];

for (const [label, fn] of parts) {
  const n = label.startsWith("bare") ? N / 10 : N;
  for (let i = 0; i < n / 10; i++) await fn(); // warm-up
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const r = fn();
    if (r instanceof Promise) await r;
  }
  const cpu = process.cpuUsage(cpuStarted);
  const wall = (performance.now() - started) * 1000 / n;
  console.log(
    `${label.padEnd(52)} cpu ${((cpu.user + cpu.system) / n).toFixed(2).padStart(7)} µs   wall ${
      wall.toFixed(2).padStart(7)
    } µs`,
  );
}
await stores.close();
await Deno.remove(dataDir, { recursive: true });
