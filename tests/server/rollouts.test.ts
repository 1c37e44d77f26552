/**
 * The whole life of a staged rollout against the real server, with simulated devices reporting over HTTP (docs/REQUIREMENTS.md
 * §13): the 1 % stage, an advance, a failure burst that pauses it, resume, finish, promote; cancel returning devices
 * to the default; a device with a custom firmware never targeted. Runs on SQLite and, in the PostgreSQL pass, on
 * PostgreSQL (tests/postgres/rollouts_replicas.test.ts adds two replicas).
 */
import assert from "node:assert/strict";
import { ApiError, DeviceClient } from "../../shared/client.ts";
import type { Rollout } from "../../shared/schemas/rollout.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { simulateFleet } from "../../testing/simulate_fleet.ts";

const DEVICES = 300;

Deno.test("rollouts: 1 %, advance, a failure burst pauses it, resume, finish, promote; cancel; pinned devices", async (t) => {
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet" } });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "rollouts-" });
  const v1 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-1.0.xz", "one")));
  const v2 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-2.0.xz", "two")));
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await api.patchDeviceType({ _id: managed._id, defaultFirmware: v1._id });
  const installed = new Map<string, string>();
  const fleet = (failRate = 0) =>
    simulateFleet({
      url: srv.url,
      key: DEVICE_API_KEY,
      devices: DEVICES,
      concurrency: 16,
      report: true,
      failRate,
      installed,
    });

  await t.step("the fleet installs the default and says so", async () => {
    const s = await fleet();
    assert.deepEqual(s.errors, {});
    assert.equal(s.installed, DEVICES);
    const d = await api.getDevice("sim-3");
    assert.equal(d.update?.state, "installed");
    assert.equal(d.update?.firmwareId, v1._id);
    assert.equal(d.update?.progress, 100);
    await api.patchDevice({ deviceId: "sim-5", firmware: v1._id });
  });

  let r: Rollout;
  await t.step("create and start at 1 %: only the first stage is offered v2; the pinned device never", async () => {
    assert.equal((await api.rolloutTargets(null)).targeted, DEVICES - 1);
    r = await api.createRollout({ name: "v2", firmwareId: v2._id, productTypeId: null });
    assert.deepEqual(r.stages, [1, 10, 50, 100]);
    assert.equal(r.failureThreshold, 5);
    await assert.rejects(api.deleteFirmware(v2._id), (e: ApiError) => e.status === 409 && /rollout v2/.test(e.msg));
    r = await api.rolloutAction(r._id, "start");
    assert.equal(r.state, "running");
    assert.equal(r.counts.targeted, DEVICES - 1);
    const offered = [];
    for (let n = 0; n < DEVICES; n++) {
      const config = await new DeviceClient(`sim-${n}`, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).config();
      if (config.firmware?._id === v2._id) offered.push(n);
    }
    assert.ok(!offered.includes(5));
    // a stage that holds no device advances at once: the offered devices are those of the stage it stopped at
    assert.equal(offered.length, r.counts.inStage);
    assert.ok(r.counts.inStage <= DEVICES * r.stages[r.stage] / 100 * 2 + 3, JSON.stringify(r.counts));
    const status = await srv.fetch(`/api/v1/device/sim-5/status`, {
      method: "POST",
      token: DEVICE_API_KEY,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ firmwareId: v2._id, state: "downloading" }),
    });
    assert.equal(status.status, 409);
    assert.match((await status.json()).msg, /sim-5 is not being offered firmware/);
  });

  await t.step("the stage installs: it advances by itself; then an operator widens it to 50 %", async () => {
    const before = r.stage;
    const s = await fleet();
    assert.deepEqual(s.errors, {});
    r = await api.getRollout(r._id);
    assert.ok(r.stage > before, `stage ${r.stage}`);
    assert.equal(r.state, "running");
    while (r.stage < 2) r = await api.rolloutAction(r._id, "advance");
    assert.equal(r.stages[r.stage], 50);
  });

  await t.step("a failure burst pauses it, with the failed devices and their messages", async () => {
    const s = await fleet(0.25);
    assert.deepEqual(s.errors, {});
    assert.ok(s.failed > 0);
    r = await api.getRollout(r._id);
    assert.equal(r.state, "paused");
    assert.match(
      r.pausedReason!,
      /^Paused automatically: \d+ of \d+ devices in stage 3 failed .* over the threshold of 5 %\.$/,
    );
    const failed = await api.rolloutDevices(r._id, { state: "failed", rowsPerPage: 100 });
    assert.equal(failed.total, r.counts.failed);
    assert.match(failed.data[0].message!, /Simulated failure/);
    await assert.rejects(api.rolloutAction(r._id, "advance"), (e: ApiError) => e.status === 409);
    const history = await api.rolloutHistory(r._id);
    assert.ok(history.length >= 1);
    assert.equal(history.at(-1)!.failed, r.counts.failed);
  });

  await t.step("resume stays at the complete stage; retry offers the failed devices the firmware again", async () => {
    r = await api.rolloutAction(r._id, "resume");
    // every device of the 50 % stage had reported, yet resume never widens it (docs/REQUIREMENTS.md §13)
    assert.equal(r.state, "running");
    assert.equal(r.stages[r.stage], 50);
    assert.equal(r.counts.pending, 0);
    const failed = await api.rolloutDevices(r._id, { state: "failed", rowsPerPage: 100 });
    r = await api.rolloutAction(r._id, "retry");
    assert.deepEqual([r.counts.failed, r.counts.pending], [0, failed.total]);
    assert.equal(r.stages[r.stage], 50);
    // the simulated devices try again what they have not installed
    for (const d of failed.data) installed.delete(d.deviceId);
    assert.deepEqual((await fleet()).errors, {});
    r = await api.getRollout(r._id);
    assert.equal(r.stages[r.stage], 100, "the retried devices completed the stage: it advanced by itself");
  });

  await t.step("the rest installs; it finishes; promote sets the default", async () => {
    const s = await fleet();
    assert.deepEqual(s.errors, {});
    r = await api.getRollout(r._id);
    assert.equal(r.state, "finished", JSON.stringify(r));
    assert.equal(r.counts.inStage, DEVICES - 1);
    assert.deepEqual([r.counts.installed, r.counts.failed, r.counts.pending], [DEVICES - 1, 0, 0]);
    r = await api.rolloutAction(r._id, "promote");
    assert.equal((await api.getDeviceType(managed._id)).defaultFirmware, v2._id);
    assert.equal((await api.getDevice("sim-5")).firmware, v1._id);
    const list = await api.listRollouts();
    assert.equal(list[0]._id, r._id);
  });

  await t.step("the firmware the fleet already runs, rolled out again: counted installed, it finishes", async () => {
    let again = await api.createRollout({ name: "v2 again", firmwareId: v2._id, productTypeId: null });
    again = await api.rolloutAction(again._id, "start");
    assert.equal(again.state, "finished", JSON.stringify(again));
    assert.deepEqual([again.counts.inStage, again.counts.installed, again.counts.pending], [
      DEVICES - 1,
      DEVICES - 1,
      0,
    ]);
    const stages = await api.rolloutStages(again._id);
    assert.deepEqual(stages.map((s) => s.pending), [0, 0, 0, 0]);
    assert.equal((await api.firmwareInEffect("sim-3")).rolloutId, again._id);
  });

  await t.step("cancel: the devices that did not install it return to the default", async () => {
    const v3 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-3.0.xz", "three")));
    let c = await api.createRollout({
      name: "v3",
      firmwareId: v3._id,
      productTypeId: null,
      stages: [50, 100],
      autoAdvance: false,
    });
    c = await api.rolloutAction(c._id, "start");
    const inStage = await api.rolloutDevices(c._id, { rowsPerPage: 100 });
    const [done, halfway] = inStage.data;
    for (const [d, state] of [[done, "installed"], [halfway, "downloading"]] as const) {
      await new DeviceClient(d.deviceId, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).status({
        firmwareId: v3._id,
        state,
      });
    }
    c = await api.rolloutAction(c._id, "cancel");
    assert.equal(c.state, "cancelled");
    await assert.rejects(api.rolloutAction(c._id, "start"), (e: ApiError) => e.status === 409);
    const fw = async (id: string) =>
      (await new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).config()).firmware?._id;
    assert.equal(await fw(done.deviceId), v3._id);
    assert.equal(await fw(halfway.deviceId), v2._id);
    await api.deleteFirmware(v3._id);
  });
});

Deno.test("rollouts with DEVICE_AUTH=token: devices report with their own tokens; another device's token is 401", async () => {
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet", DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto" } });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "rollouts-token-" });
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-tok-1.0.xz", "token")));
  const tokens = new Map<string, string>();
  const fleet = (report: boolean) =>
    simulateFleet({ url: srv.url, key: DEVICE_API_KEY, devices: 20, auth: "token", tokens, report, concurrency: 4 });
  assert.deepEqual((await fleet(false)).errors, {});
  assert.equal(tokens.size, 20);
  let r = await api.createRollout({ name: "tok", firmwareId: fw._id, productTypeId: null, stages: [100] });
  r = await api.rolloutAction(r._id, "start");
  const s = await fleet(true);
  assert.deepEqual(s.errors, {});
  assert.equal(s.installed, 20);
  r = await api.getRollout(r._id);
  assert.equal(r.state, "finished");
  assert.equal(r.counts.installed, 20);

  const report = (id: string, key: string) =>
    new DeviceClient(id, { baseUrl: srv.url, apiKey: key }).status({ firmwareId: fw._id, state: "installed" });
  await report("sim-1", tokens.get("sim-1")!);
  await assert.rejects(report("sim-1", tokens.get("sim-2")!), (e: ApiError) => e.status === 401);
  await assert.rejects(report("sim-1", DEVICE_API_KEY), (e: ApiError) => e.status === 401);
});
