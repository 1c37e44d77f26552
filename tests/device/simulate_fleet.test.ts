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
