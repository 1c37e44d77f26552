/** `deno task bench --quick` runs every benchmark step on tiny sizes, so the bench code cannot rot. */
import assert from "node:assert/strict";

Deno.test("deno task bench --quick measures every figure", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/bench.ts", "--quick"],
    cwd: new URL("../../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, `${text}\n${new TextDecoder().decode(out.stderr)}`);
  for (
    const figure of [
      "GET devices (page",
      "GET devices p99 latency",
      "last page",
      "q search",
      "GET treatments (200)",
      "Firmware upload 16.0 MiB: time vs cp",
      "Firmware upload: server peak RSS",
      "Firmware upload (streamed, hashed, tested by xz) vs",
      "Device check-in p99 during a firmware upload vs idle",
      "Import 200 × 10 × 4",
      "Web, sign-in page",
      "Web, devices page",
      "Device check-in, 20 concurrent devices",
      "SQLite: GET devices (middle page of 5,000)",
      "PostgreSQL: GET devices (middle page of 2,000)",
      "PostgreSQL: GET devices (middle page of 5,000)",
      "PostgreSQL: GET devices (5,000), last page",
      "PostgreSQL: device check-in, 20 concurrent devices",
      "PostgreSQL: import 200 × 10 × 4",
      "SQLite: a device write without / with its audit entry",
      "SQLite: PATCH device over HTTP (with its entry)",
      "SQLite: GET audit at 5,000 entries, first / middle / last page",
      "SQLite: GET audit filtered",
      "PostgreSQL: a device write without / with its audit entry",
      "PostgreSQL: GET audit at 5,000 entries, first / middle / last page",
      "PostgreSQL: audit-verify of 5,000 entries",
      "SQLite: rollout of 2,000 devices: start",
      "SQLite: status reports during the rollout",
      "SQLite: GET rollouts/{id} with its counts at 2,000 devices",
      "PostgreSQL, 2 replicas: status reports during the rollout",
      "PostgreSQL, 2 replicas: GET rollouts/{id} with its counts at 2,000 devices",
      "SQLite: quiet §6 check-ins by 20 devices (one connection each), req/s vs bare Hono",
      "SQLite: quiet DDI polls by 20 devices",
      "PostgreSQL: quiet §6 check-ins by 20 devices",
      "PostgreSQL: quiet DDI polls by 20 devices",
      "PostgreSQL with 2 replicas vs SQLite (one server): quiet §6 check-ins by 20 devices",
      "Simulated fleet: 10,000 registered devices (DEVICE_AUTH=token) polling at 300/s for 3 s",
      "Simulated fleet: latency p50 / p99",
      "Simulated fleet: CPU in the 3 s",
      "Simulated fleet: the same load for 3 s against 2 bare Hono servers",
    ]
  ) {
    const row = text.split("\n").find((line) => line.includes(figure));
    assert.ok(row, `no row for ${figure}:\n${text}`);
    assert.match(row, /\d/, `no number in ${row}`);
    assert.doesNotMatch(row, /NaN/, row);
  }
  assert.match(text, /non-2xx answers during load: 0/);
  // Each upload's CPU row: the median of three runs, every ratio shown, the highest peak RSS of the three.
  for (const upload of ["raw PUT to disk", "multipart form to disk", "raw PUT to a bucket (s3rver)"]) {
    const row = text.split("\n").find((line) => line.includes(`MiB, ${upload}: server CPU per GiB vs the floor`));
    assert.ok(row, `no upload CPU row for ${upload}`);
    const m = /= (\d+\.\d\d) \(median of (\d+\.\d\d), (\d+\.\d\d), (\d+\.\d\d)\); [\d.]+ MiB \(the highest of 3;/
      .exec(row);
    assert.ok(m, row);
    const sorted = [m[2], m[3], m[4]].map(Number).sort((a, b) => a - b);
    assert.equal(Number(m[1]), sorted[1], row);
  }
});

Deno.test("deno task bench --fleet --quick measures the fleet views on both engines", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/bench.ts", "--fleet", "--quick"],
    cwd: new URL("../../", import.meta.url).pathname,
    env: { FLEET_RUNS: "10" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, `${text}\n${new TextDecoder().decode(out.stderr)}`);
  for (const engine of ["SQLite", "PostgreSQL"]) {
    for (const figure of ["product type, sorted by last check-in", "GET overview", "devices.csv read"]) {
      assert.match(text, new RegExp(`\\| ${engine} \\| [^\\n]*${figure}`), `${engine}: ${figure}`);
    }
  }
});
