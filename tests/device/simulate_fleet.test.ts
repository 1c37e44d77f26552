import assert from "node:assert/strict";
import { simulateFleet } from "../../testing/simulate_fleet.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("simulate-fleet checks devices in and verifies their firmware downloads", async (t) => {
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet" } });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "fleet-" });
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fleet-fw.xz", "x".repeat(50_000))));
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });

  await t.step("the core function: every device checks in each round and downloads once", async () => {
    const s = await simulateFleet({
      url: srv.url,
      key: DEVICE_API_KEY,
      devices: 60,
      concurrency: 8,
      rounds: 2,
      download: true,
    });
    assert.deepEqual(s.errors, {});
    assert.equal(s.checkins, 120);
    assert.equal(s.downloads, 60);
    assert.equal(s.requests, 180);
    assert.equal(s.bytes, 60 * fw.size);
    assert.ok(s.requestsPerSecond > 0);
    assert.equal((await api.listDevices({ q: "sim-" })).total, 60);
    const d = await api.getDevice("sim-7");
    assert.ok(d.lastLoggedIn && d.versionInfo?.app);
  });

  await t.step("failures are counted by kind, not thrown", async () => {
    const s = await simulateFleet({
      url: srv.url,
      key: "not-the-key-0123456789",
      devices: 5,
      concurrency: 2,
      prefix: "bad-",
    });
    assert.deepEqual(s.errors, { "401": 5 });
    assert.equal(s.errorCount, 5);
    assert.match(s.firstError!, /device API key/);
    assert.equal((await api.listDevices({ q: "bad-" })).total, 0);
  });

  await t.step("the script prints a summary and exits 0, 1 on failures, 2 on wrong usage", async () => {
    const run = (...args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `${ROOT}scripts/simulate-fleet.ts`, ...args],
        cwd: ROOT,
        env: { DEVICE_API_KEY: "" },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const dec = (b: Uint8Array) => new TextDecoder().decode(b);
    const ok = await run("--url", srv.url, "--key", DEVICE_API_KEY, "--devices", "10", "--download", "--json");
    assert.equal(ok.code, 0, dec(ok.stderr));
    const summary = JSON.parse(dec(ok.stdout));
    assert.equal(summary.checkins, 10);
    assert.equal(summary.downloads, 10);
    const text = await run("--url", srv.url, "--key", DEVICE_API_KEY, "--devices", "3", "--prefix", "txt-");
    assert.equal(text.code, 0);
    assert.match(dec(text.stdout), /requests\/s/);
    const failed = await run("--url", srv.url, "--key", "wrong-key-0123456789", "--devices", "2");
    assert.equal(failed.code, 1);
    assert.match(dec(failed.stdout), /401: 2/);
    assert.equal((await run("--url", srv.url, "--devices", "2")).code, 2, "no key");
    assert.equal((await run("--url", srv.url, "--key", "k", "--devices", "zero")).code, 2);
  });

  await Deno.remove(dir, { recursive: true });
});

Deno.test("simulate-fleet in token mode: enrol, wait while pending, then check in with the token", async (t) => {
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet", DEVICE_AUTH: "token" } });
  const api = await srv.login();

  await t.step("pending devices give up after their wait; accepted ones get a token and check in", async () => {
    const tokens = new Map<string, string>();
    const first = await simulateFleet({ url: srv.url, key: DEVICE_API_KEY, devices: 4, auth: "token", tokens });
    assert.deepEqual([first.errors, first.pending, first.enrolled, first.checkins], [{}, 4, 0, 0]);
    assert.equal((await api.listDevices({ admission: "pending" })).total, 4);
    // Accepted while they wait: they enrol again, get their token and check in.
    const waiting = simulateFleet({
      url: srv.url,
      key: DEVICE_API_KEY,
      devices: 4,
      auth: "token",
      tokens,
      waitMs: 20_000,
      pollMs: 100,
    });
    await new Promise((r) => setTimeout(r, 300));
    for (let n = 0; n < 4; n++) await api.acceptDevice(`sim-${n}`);
    const second = await waiting;
    assert.deepEqual([second.errors, second.pending, second.enrolled, second.checkins], [{}, 0, 4, 4]);
    assert.equal(tokens.size, 4);
    assert.ok((await api.getDevice("sim-2")).lastLoggedIn);
    // Known tokens: no enrolment, straight to check-in.
    const third = await simulateFleet({ url: srv.url, key: DEVICE_API_KEY, devices: 4, auth: "token", tokens });
    assert.deepEqual([third.errors, third.enrolled, third.checkins, third.requests], [{}, 0, 4, 4]);
  });

  await t.step("the script keeps tokens in a file between runs (mode 0600)", async () => {
    await srv.fetch("/api/v1/devices/preauthorize", {
      method: "POST",
      token: api.token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deviceIds: ["f-0", "f-1"] }),
    }).then((r) => r.body?.cancel());
    const file = `${await Deno.makeTempDir()}/tokens.json`;
    const run = () =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          `${ROOT}scripts/simulate-fleet.ts`,
          "--url",
          srv.url,
          "--key",
          DEVICE_API_KEY,
          "--devices",
          "2",
          "--prefix",
          "f-",
          "--auth",
          "token",
          "--tokens",
          file,
          "--json",
        ],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
    const dec = (b: Uint8Array) => new TextDecoder().decode(b);
    const first = await run();
    assert.equal(first.code, 0, dec(first.stderr) + dec(first.stdout));
    assert.deepEqual(JSON.parse(dec(first.stdout)).enrolled, 2);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    const second = await run();
    assert.equal(second.code, 0, dec(second.stderr) + dec(second.stdout));
    const s = JSON.parse(dec(second.stdout));
    assert.deepEqual([s.enrolled, s.checkins], [0, 2]);
  });
});
