/** GET /metrics behind METRICS_TOKEN, JSON log lines and X-Request-Id (docs/REQUIREMENTS.md §14). */
import assert from "node:assert/strict";
import { DEVICE_API_KEY, requestLinesWritten, startServer } from "../../testing/server.ts";
import { bytesSource } from "../../testing/files.ts";
import { xzOfSize } from "../../testing/xz_fixtures.ts";

const METRICS_TOKEN = "metrics-token-0123456789";

Deno.test("GET /metrics: 404 without METRICS_TOKEN", async () => {
  await using srv = await startServer();
  const res = await srv.fetch("/metrics");
  assert.equal(res.status, 404);
  await res.body?.cancel();
});

Deno.test("GET /metrics: the token is required; the series count what the server did", async () => {
  await using srv = await startServer({ env: { METRICS_TOKEN } });
  for (const token of [undefined, "wrong-token-0123456789"]) {
    const res = await srv.fetch("/metrics", { token });
    assert.equal(res.status, 401);
    await res.body?.cancel();
  }
  const api = await srv.login();
  await api.listDevices();
  await api.listDevices({ page: 2 });
  const fw = await api.uploadFirmware(bytesSource("m.xz", xzOfSize(4096)));
  const device = { authorization: `Bearer ${DEVICE_API_KEY}`, "content-type": "application/json" };
  for (const id of ["m-1", "m-2", "m-3"]) {
    const r = await srv.fetch(`/api/v1/device/${id}/checkin`, {
      method: "POST",
      headers: device,
      body: JSON.stringify({ versionInfo: { app: "1", os: "1", channels: [] } }),
    });
    await r.body?.cancel();
  }
  const file = await srv.fetch(`/api/v1/device_firmwares/${fw._id}/file`, { token: api.token });
  assert.equal((await file.arrayBuffer()).byteLength, 4096);

  const trail = await (await srv.fetch("/api/v1/audit?rowsPerPage=1", { token: api.token })).json();
  const res = await srv.fetch("/metrics", { token: METRICS_TOKEN });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const value = (series: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    assert.ok(line, `${series} is missing`);
    return Number(line.split(" ")[1]);
  };
  assert.equal(value('console_http_requests_total{route="/api/v1/devices",method="GET",status="200"}'), 2);
  assert.ok(value('console_http_request_duration_seconds_count{route="/api/v1/devices",method="GET",status="200"}'));
  assert.equal(value("console_device_checkins_total"), 3);
  assert.ok(value('console_upload_bytes_total{kind="firmware"}') > 4096);
  assert.equal(value('console_firmware_bytes_served_total{to="operators"}'), 4096);
  assert.match(text, /^console_process_resident_memory_bytes \d+/m);
  // The bootstrap admin, the managed device type, the sign-in, the upload and three new devices.
  assert.equal(value("console_audit_entries_total"), trail.total);
  assert.equal(trail.total, 7);
  // Every series the Grafana dashboard in docs/ queries exists.
  const dashboard = await Deno.readTextFile(new URL("../../docs/grafana-dashboard.json", import.meta.url));
  const queried = new Set([...dashboard.matchAll(/console_[a-z0-9_]+/g)].map((m) => m[0].replace(/_bucket$/, "")));
  for (const name of queried) assert.match(text, new RegExp(`^# TYPE ${name} `, "m"), `${name} is not exported`);
});

Deno.test("LOG_FORMAT=json: one object per line; X-Request-Id on every answer and in the request's lines", async () => {
  await using srv = await startServer({ env: { LOG_FORMAT: "json" } });
  const mine = await srv.fetch("/api/v1/devices", { headers: { "X-Request-Id": "trace-abc.123" } });
  assert.equal(mine.status, 401);
  assert.equal(mine.headers.get("x-request-id"), "trace-abc.123");
  await mine.body?.cancel();
  const made = await srv.fetch("/healthz", { headers: { "X-Request-Id": "not a sane id" } });
  const id = made.headers.get("x-request-id")!;
  assert.match(id, /^[0-9a-f-]{36}$/);
  await made.body?.cancel();
  await requestLinesWritten(srv); // request lines are written in batches
  const lines = srv.output().split("\n").filter((l) => l.startsWith("{"));
  const objects = lines.map((l) => JSON.parse(l));
  assert.ok(objects.every((o) => typeof o.time === "string" && typeof o.level === "string" && "msg" in o));
  const request = objects.find((o) => o.requestId === "trace-abc.123");
  assert.deepEqual(
    { method: request.method, path: request.path, status: request.status, level: request.level },
    { method: "GET", path: "/api/v1/devices", status: 401, level: "info" },
  );
  assert.equal(typeof request.ms, "number");
  assert.ok(objects.some((o) => o.requestId === id && o.path === "/healthz"));
  // Lines before the first request (start-up) are JSON too, without a request id.
  assert.ok(objects.some((o) => o.msg.startsWith("Created operator") && !("requestId" in o)));
  assert.ok(!srv.output().split("\n").some((l) => l.trim() && !l.startsWith("{") && !l.startsWith("Listening")));
});
