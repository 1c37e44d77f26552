import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import type { Rollout } from "../../shared/schemas/rollout.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { cliJson, runCli, show } from "./run_cli.ts";
import { draftWithSplitFirstStage } from "../helpers/split_stage.ts";

Deno.test("CLI rollouts: create, list, show, actions with --json and exit codes; show --wait exits 1 paused, 0 finished, 2 timed out", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const dir = await Deno.makeTempDir({ prefix: "cli-rollouts-" });
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-9.xz", "nine")));
  const ids = Array.from({ length: 10 }, (_, i) => `CL-${i}`);
  const device = (id: string) => new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY });
  for (const id of ids) await device(id).checkin({ versionInfo: { app: "1", os: "1", channels: [] } });
  let r: Rollout;

  await t.step("create by firmware name (draft), list, show", async () => {
    const create = () =>
      cliJson<Rollout>(["rollouts", "create", "--firmware", "fw-9.xz", "--stages", "50,100", "--threshold", "10"], {
        env,
      });
    // One failure must pause the first stage (over 10 %): it must hold some but not all of the 10 devices.
    r = await draftWithSplitFirstStage(ids, 50, create, (id) => api.rolloutAction(id, "cancel"));
    assert.equal(r.state, "draft");
    assert.equal(r.name, "fw-9.xz");
    assert.deepEqual(r.stages, [50, 100]);
    assert.equal(r.failureThreshold, 10);
    assert.equal(r.firmwareId, fw._id);
    const list = await cliJson<Rollout[]>(["rollouts", "list"], { env });
    assert.equal(list[0]._id, r._id);
    const table = await runCli(["rollouts", "list"], { env });
    assert.equal(table.code, 0, show(table));
    assert.match(table.stdout, /fw-9\.xz\s+draft/);
    const shown = await runCli(["rollouts", "show", r._id], { env });
    assert.match(shown.stdout, /Stages:\s+50 % -> 100 %/);
  });

  await t.step("refusals exit 1 with the server's message; wrong usage exits 2", async () => {
    const bad = await runCli(["rollouts", "pause", r._id], { env });
    assert.equal(bad.code, 1, show(bad));
    assert.match(bad.stderr, /is draft: it cannot be paused/);
    const unknown = await runCli(["rollouts", "create", "--firmware", "nope.xz"], { env });
    assert.equal(unknown.code, 1);
    const usage = await runCli(["rollouts", "create", "--firmware", "fw-9.xz", "--threshold", "200"], { env });
    assert.equal(usage.code, 2, show(usage));
  });

  await t.step("start; failures pause it: show --wait exits 1 naming the reason", async () => {
    r = await cliJson<Rollout>(["rollouts", "start", r._id], { env });
    assert.equal(r.state, "running");
    const inStage = await api.rolloutDevices(r._id, { rowsPerPage: 100 });
    await device(inStage.data[0].deviceId).status({ firmwareId: fw._id, state: "failed", message: "disk full" });
    const wait = await runCli(["rollouts", "show", r._id, "--wait", "--interval", "0.2"], { env });
    assert.equal(wait.code, 1, show(wait));
    assert.match(wait.stdout, /paused/);
    assert.match(wait.stderr, /Paused automatically/);
  });

  await t.step("create --start refused (409): it says which draft it left and how to start or cancel it", async () => {
    const refused = await runCli(["rollouts", "create", "--start", "--firmware", "fw-9.xz", "--name", "second"], {
      env,
    });
    assert.equal(refused.code, 1, show(refused));
    const draft = (await api.listRollouts()).find((x) => x.name === "second")!;
    assert.equal(draft.state, "draft");
    assert.match(refused.stderr, new RegExp(`^error: Rollout second \\(${draft._id}\\) was created but not started: `));
    assert.match(refused.stderr, /already running or paused for all devices/);
    assert.ok(refused.stderr.includes(`deno task cli rollouts start ${draft._id}`), refused.stderr);
    assert.ok(refused.stderr.includes(`deno task cli rollouts cancel ${draft._id}`), refused.stderr);
    assert.equal(refused.stdout, "");
    await api.rolloutAction(draft._id, "cancel");
  });

  await t.step(
    "resume stays at its stage; show --wait --timeout exits 2; retry counts the failure pending",
    async () => {
      r = await cliJson<Rollout>(["rollouts", "resume", r._id], { env });
      assert.deepEqual([r.state, r.stage], ["running", 0]);
      const timedOut = await runCli(["rollouts", "show", "--wait", "--timeout", "0.5", "--interval", "0.2", r._id], {
        env,
      });
      assert.equal(timedOut.code, 2, show(timedOut));
      assert.match(timedOut.stderr, /^error: Rollout fw-9\.xz is still running after 0\.5 s: /);
      assert.match(timedOut.stdout, /running, stage 1\/2 \(50 %\); \d+\/\d+ installed, 1 failed, \d+ pending/);
      const usage = await runCli(["rollouts", "show", r._id, "--timeout", "5"], { env });
      assert.equal(usage.code, 2, show(usage));
      const retried = await runCli(["rollouts", "retry", r._id], { env });
      assert.equal(retried.code, 0, show(retried));
      assert.match(retried.stdout, / 0 failed, /);
      r = await api.getRollout(r._id);
      assert.deepEqual([r.counts.failed, r.counts.pending], [0, r.counts.inStage - r.counts.installed]);
      const again = await runCli(["rollouts", "retry", r._id], { env });
      assert.equal(again.code, 1, show(again));
      assert.match(again.stderr, /has no failed devices/);
    },
  );

  await t.step("advance, the rest install: show --wait exits 0; promote sets the default", async () => {
    const waiting = runCli(["rollouts", "--json", "show", r._id, "--wait", "--interval", "0.2"], { env });
    if (r.stage === 0) r = await cliJson<Rollout>(["rollouts", "advance", r._id], { env });
    const pending = await api.rolloutDevices(r._id, { state: "pending", rowsPerPage: 100 });
    for (const d of pending.data) await device(d.deviceId).status({ firmwareId: fw._id, state: "installed" });
    const done = await waiting;
    assert.equal(done.code, 0, show(done));
    assert.equal(JSON.parse(done.stdout).state, "finished");
    const promoted = await runCli(["rollouts", "promote", r._id], { env });
    assert.equal(promoted.code, 0, show(promoted));
    assert.equal(promoted.stderr, "", "nothing pending or failed: no note");
    assert.equal((await api.listDeviceTypes())[0].defaultFirmware, fw._id);
    const cancel = await runCli(["rollouts", "cancel", r._id], { env });
    assert.equal(cancel.code, 1);
    const shown = await runCli(["devices", "show", "CL-0"], { env });
    assert.match(
      shown.stdout,
      new RegExp(`Firmware in effect:\\s+fw-9\\.xz \\(${fw._id}\\), from rollout fw-9\\.xz \\(${r._id}\\)`),
    );
    const table = await runCli(["rollouts", "list"], { env });
    assert.match(table.stdout, /INSTALLED\s+FAILED\s+PENDING\s+TARGETED/);
  });
});
