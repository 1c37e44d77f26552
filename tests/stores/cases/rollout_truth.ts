/**
 * docs/REQUIREMENTS.md §13's later points: nothing widens by surprise (resume never advances), finished says what is true
 * (pending counts, per-stage numbers), failed devices can be retried, a rollout of the firmware devices already run
 * counts them installed, and where a device's firmware comes from.
 */
import assert from "node:assert/strict";
import { ConflictError } from "../../../server/db/errors.ts";
import { ALREADY_RUNNING, bucket } from "../../../server/db/rules/rollouts.ts";
import type { Stores } from "../../../server/db/stores.ts";
import type { RolloutAction } from "../../../shared/schemas/rollout.ts";
import {
  addFirmware,
  checkin,
  type ConformanceOptions,
  MANAGED_TYPE,
  PRODUCT,
  rejectsWith,
  storeTest,
} from "../fixtures.ts";

const BY = { email: "op@example.com" };
const act = (stores: Stores, id: string, action: RolloutAction) => stores.rollouts.act(id, action, BY, PRODUCT);

async function managedType(stores: Stores) {
  return (await stores.deviceTypes.list()).find((t) => t.name === MANAGED_TYPE)!;
}

async function setDefault(stores: Stores, firmwareId: string | null) {
  await stores.deviceTypes.setDefaultFirmware((await managedType(stores))._id, firmwareId);
}

async function auditActions(stores: Stores, id: string): Promise<string[]> {
  const page = await stores.audit.list({ targetType: "rollout", targetId: id }, 0, 100);
  return page.data.map((e) => e.action).reverse();
}

export function rolloutTruthCases(engine: string, options: ConformanceOptions) {
  storeTest(
    engine,
    options,
    "rollouts: resume never advances; pending counts; retry of failed devices",
    async (s, t) => {
      await s.deviceTypes.ensure(PRODUCT);
      const v1 = await addFirmware(s, "v1.xz");
      const v2 = await addFirmware(s, "v2.xz");
      await setDefault(s, v1._id);
      const ids = Array.from({ length: 20 }, (_, i) => `t-${String(i).padStart(2, "0")}`);
      for (const id of ids) await checkin(s, id);
      const draft = await s.rollouts.create(
        { name: "v2", firmwareId: v2._id, productTypeId: null, stages: [50, 100], failureThreshold: 5 },
        BY,
      );
      const first = ids.filter((id) => bucket(draft._id, id) < 50);
      assert.ok(first.length >= 2 && first.length < ids.length, `${first.length} devices in the first stage`);

      await t.step("a draft: retry refused; its stages say how many devices each would reach", async () => {
        await rejectsWith(
          act(s, draft._id, "retry"),
          ConflictError,
          "Rollout v2 is draft: it cannot be retried (only a running, paused or finished rollout can).",
        );
        assert.deepEqual(await s.rollouts.stages(draft._id), [
          { stage: 0, percent: 50, reached: false, devices: first.length, installed: 0, failed: 0, pending: 0 },
          { stage: 1, percent: 100, reached: false, devices: 20, installed: 0, failed: 0, pending: 0 },
        ]);
        assert.equal(await s.rollouts.stages("nope"), null);
      });

      const started = await act(s, draft._id, "start");
      await t.step("started: every device of the stage is pending until its final report", () => {
        assert.equal(started.counts.inStage, first.length);
        assert.equal(started.counts.pending, first.length);
        return Promise.resolve();
      });

      await t.step("a failure pauses it; the others install meanwhile; resume keeps the complete stage", async () => {
        await s.deviceApi.status(first[0], { firmwareId: v2._id, state: "downloading" }, PRODUCT);
        assert.equal((await s.rollouts.get(draft._id))!.counts.pending, first.length, "downloading is still pending");
        await s.deviceApi.status(first[0], { firmwareId: v2._id, state: "failed", message: "disk" }, PRODUCT);
        let now = (await s.rollouts.get(draft._id))!;
        assert.equal(now.state, "paused");
        assert.equal(now.counts.pending, first.length - 1);
        for (const id of first.slice(1)) {
          await s.deviceApi.status(id, { firmwareId: v2._id, state: "installed" }, PRODUCT);
        }
        now = (await s.rollouts.get(draft._id))!;
        assert.deepEqual([now.state, now.stage, now.counts.pending], ["paused", 0, 0]);
        now = await act(s, draft._id, "resume");
        assert.deepEqual([now.state, now.stage, now.counts.inStage], ["running", 0, first.length], "resume stayed");
        assert.equal((await s.rollouts.get(draft._id))!.stage, 0);
        const actions = await auditActions(s, draft._id);
        assert.equal(actions.at(-1), "rollout.resume");
        assert.ok(!actions.includes("rollout.auto_advance"), actions.join(", "));
      });

      await t.step("retry: the failed device is pending again, audited; nothing left to retry is 409", async () => {
        const now = await act(s, draft._id, "retry");
        assert.deepEqual([now.state, now.stage], ["running", 0]);
        assert.deepEqual(
          [now.counts.failed, now.counts.pending, now.counts.installed],
          [0, 1, first.length - 1],
        );
        const pending = (await s.rollouts.devices(draft._id, { state: "pending", page: 0, rowsPerPage: 100 }))!;
        assert.deepEqual(pending.data.map((d) => [d.deviceId, d.message]), [[first[0], null]]);
        const entry = (await s.audit.list({ targetType: "rollout", targetId: draft._id }, 0, 1)).data[0];
        assert.equal(entry.action, "rollout.retry");
        assert.equal(entry.details.retried, 1);
        assert.equal((entry.details.counts as { pending: number }).pending, 1);
        await rejectsWith(
          act(s, draft._id, "retry"),
          ConflictError,
          "Rollout v2 has no failed devices: there is nothing to retry.",
        );
      });

      await t.step("the retried device installs: the stage completes and advances by itself", async () => {
        await s.deviceApi.status(first[0], { firmwareId: v2._id, state: "installed" }, PRODUCT);
        const now = (await s.rollouts.get(draft._id))!;
        assert.equal(now.stage, 1);
        assert.equal(now.counts.inStage, 20);
        assert.equal(now.counts.pending, 20 - first.length);
        assert.deepEqual(await s.rollouts.stages(draft._id), [
          {
            stage: 0,
            percent: 50,
            reached: true,
            devices: first.length,
            installed: first.length,
            failed: 0,
            pending: 0,
          },
          {
            stage: 1,
            percent: 100,
            reached: true,
            devices: 20,
            installed: first.length,
            failed: 0,
            pending: 20 - first.length,
          },
        ]);
      });

      await t.step("cancelled: retry refused", async () => {
        await act(s, draft._id, "cancel");
        await assert.rejects(act(s, draft._id, "retry"), ConflictError);
      });
    },
  );

  storeTest(
    engine,
    options,
    "rollouts: the default's firmware rolled out again counts the devices already running it installed",
    async (s, t) => {
      await s.deviceTypes.ensure(PRODUCT);
      const v1 = await addFirmware(s, "v1.xz");
      await setDefault(s, v1._id);
      const ids = Array.from({ length: 12 }, (_, i) => `a-${String(i).padStart(2, "0")}`);
      for (const id of ids) {
        await checkin(s, id);
        await s.deviceApi.status(id, { firmwareId: v1._id, state: "installed" }, PRODUCT);
      }

      await t.step("autoAdvance: it finishes at once, every device installed, none pending", async () => {
        const r = await s.rollouts.create(
          { name: "v1 again", firmwareId: v1._id, productTypeId: null, stages: [10, 50, 100] },
          BY,
        );
        const now = await act(s, r._id, "start");
        assert.equal(now.state, "finished");
        assert.deepEqual(
          [now.counts.inStage, now.counts.installed, now.counts.pending, now.counts.failed],
          [12, 12, 0, 0],
        );
        const page = (await s.rollouts.devices(r._id, { state: "installed", page: 0, rowsPerPage: 100 }))!;
        assert.equal(page.total, 12);
        assert.equal(page.data[0].message, ALREADY_RUNNING);
        assert.ok(page.data[0].at !== null);
        await act(s, r._id, "promote");
      });

      await t.step("without autoAdvance: the stage is complete, only its devices counted", async () => {
        await checkin(s, "a-new"); // never reported: pending when its stage comes
        await s.deviceApi.status("a-00", { firmwareId: v1._id, state: "failed", message: "x" }, PRODUCT);
        const r = await s.rollouts.create(
          { name: "v1 third", firmwareId: v1._id, productTypeId: null, stages: [100], autoAdvance: false },
          BY,
        );
        const now = await act(s, r._id, "start");
        assert.equal(now.counts.inStage, 13);
        assert.equal(now.counts.installed, 11, "a-00 last reported failed, a-new never reported");
        assert.equal(now.counts.pending, 2);
        assert.equal(now.state, "running");
      });
    },
  );

  storeTest(engine, options, "devices: the firmware in effect and why; a default's reach", async (s) => {
    await s.deviceTypes.ensure(PRODUCT);
    const v1 = await addFirmware(s, "v1.xz");
    const v2 = await addFirmware(s, "v2.xz");
    await setDefault(s, v1._id);
    const ids = Array.from({ length: 10 }, (_, i) => `f-${i}`);
    for (const id of ids) await checkin(s, id);
    await s.devices.patch("f-9", { firmware: v2._id });
    const type = await managedType(s);
    assert.deepEqual(await s.deviceTypes.reach(type._id, PRODUCT), { total: 10, devices: 9, custom: 1, rollout: 0 });

    const r = await act(
      s,
      (await s.rollouts.create(
        { name: "v2 half", firmwareId: v2._id, productTypeId: null, stages: [50, 100], autoAdvance: false },
        BY,
      ))._id,
      "start",
    );
    const held = ids.slice(0, 9).filter((id) => bucket(r._id, id) < 50);
    const free = ids.slice(0, 9).filter((id) => bucket(r._id, id) >= 50);
    assert.ok(held.length > 0 && free.length > 0);
    assert.deepEqual(await s.deviceTypes.reach(type._id, PRODUCT), {
      total: 10,
      devices: free.length,
      custom: 1,
      rollout: held.length,
    });
    assert.equal(await s.deviceTypes.reach("nope", PRODUCT), null);

    assert.deepEqual(await s.deviceApi.firmwareInEffect("f-9", PRODUCT), {
      deviceId: "f-9",
      firmwareId: v2._id,
      firmwareName: "v2.xz",
      source: "custom",
      rolloutId: null,
      rolloutName: null,
    });
    assert.deepEqual(await s.deviceApi.firmwareInEffect(held[0], PRODUCT), {
      deviceId: held[0],
      firmwareId: v2._id,
      firmwareName: "v2.xz",
      source: "rollout",
      rolloutId: r._id,
      rolloutName: "v2 half",
    });
    assert.deepEqual(await s.deviceApi.firmwareInEffect(free[0], PRODUCT), {
      deviceId: free[0],
      firmwareId: v1._id,
      firmwareName: "v1.xz",
      source: "default",
      rolloutId: null,
      rolloutName: null,
    });
    assert.equal(await s.deviceApi.firmwareInEffect("ghost", PRODUCT), null);
    await setDefault(s, null);
    assert.deepEqual(await s.deviceApi.firmwareInEffect(free[0], PRODUCT), {
      deviceId: free[0],
      firmwareId: null,
      firmwareName: null,
      source: null,
      rolloutId: null,
      rolloutName: null,
    });
  });
}
