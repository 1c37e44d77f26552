import assert from "node:assert/strict";
import { ConflictError, InvalidError, NotFoundError } from "../../../server/db/errors.ts";
import { atInstant } from "../../../server/db/clock.ts";
import { bucket } from "../../../server/db/rules/rollouts.ts";
import type { Stores } from "../../../server/db/stores.ts";
import type { RolloutAction } from "../../../shared/schemas/rollout.ts";
import {
  addFirmware,
  addProductType,
  checkin,
  type ConformanceOptions,
  MANAGED_TYPE,
  PRODUCT,
  rejectsWith,
  storeTest,
} from "../fixtures.ts";

const BY = { email: "op@example.com" };

/** Devices named so that some fall into each stage of a rollout: the first `n` ids in bucket order. */
const act = (stores: Stores, id: string, action: RolloutAction) => stores.rollouts.act(id, action, BY, PRODUCT);

async function setDefault(stores: Stores, firmwareId: string) {
  const type = (await stores.deviceTypes.list()).find((t) => t.name === MANAGED_TYPE)!;
  await stores.deviceTypes.setDefaultFirmware(type._id, firmwareId);
}

export function rolloutCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "rollouts: stages, reports, automatic pause and advance, promote", async (stores, t) => {
    await stores.deviceTypes.ensure(PRODUCT);
    const v1 = await addFirmware(stores, "v1.xz");
    const v2 = await addFirmware(stores, "v2.xz");
    await setDefault(stores, v1._id);
    const ids = Array.from({ length: 40 }, (_, i) => `dev-${String(i).padStart(3, "0")}`);
    for (const id of ids) await checkin(stores, id);
    const pt = await addProductType(stores, "Other");
    await stores.devices.patch("dev-039", { firmware: v1._id });

    const draft = await stores.rollouts.create(
      { name: "v2 to all", firmwareId: v2._id, productTypeId: null, stages: [10, 50, 100], failureThreshold: 20 },
      BY,
    );
    await t.step("a draft offers nothing", async () => {
      assert.equal(draft.state, "draft");
      assert.equal(draft.stage, -1);
      assert.deepEqual(draft.counts, {
        targeted: 0,
        inStage: 0,
        downloading: 0,
        installing: 0,
        installed: 0,
        failed: 0,
        pending: 0,
      });
      assert.equal(draft.autoAdvance, true);
      assert.equal(draft.createdBy, BY.email);
      assert.equal((await stores.deviceApi.config("dev-000", PRODUCT))!.firmware!._id, v1._id);
      assert.equal(await stores.rollouts.targets(null), 39);
      assert.equal(await stores.rollouts.targets(pt._id), 0);
    });

    await t.step("refusals: unknown ids, transitions, deleting the firmware", async () => {
      await rejectsWith(
        stores.rollouts.create({ name: "x", firmwareId: "nope", productTypeId: null }, BY),
        InvalidError,
        "firmwareId: no firmware with id nope.",
      );
      await assert.rejects(
        stores.rollouts.create({ name: "x", firmwareId: v2._id, productTypeId: "nope" }, BY),
        InvalidError,
      );
      await assert.rejects(act(stores, "nope", "start"), NotFoundError);
      await assert.rejects(act(stores, draft._id, "pause"), ConflictError);
      await assert.rejects(act(stores, draft._id, "promote"), ConflictError);
      await rejectsWith(
        stores.firmwares.remove(v2._id),
        ConflictError,
        "Firmware v2.xz cannot be deleted: rollout v2 to all ships it (cancel it first).",
      );
    });

    const r = await act(stores, draft._id, "start");
    const inStage = (p: number) => ids.filter((id) => id !== "dev-039" && bucket(r._id, id) < p);
    await t.step("start: the first stage's devices get the firmware, by the stable bucket", async () => {
      assert.equal(r.state, "running");
      assert.equal(r.counts.targeted, 39);
      // a stage without devices advances at once; the test then reads where it stopped
      const stage = r.stage;
      assert.equal(r.counts.inStage, inStage(r.stages[stage]).length);
      for (const id of ids) {
        const fw = (await stores.deviceApi.config(id, PRODUCT))!.firmware!._id;
        const expected = id !== "dev-039" && bucket(r._id, id) < r.stages[stage] ? v2._id : v1._id;
        assert.equal(fw, expected, id);
      }
      await assert.rejects(
        stores.rollouts.create({ name: "again", firmwareId: v2._id, productTypeId: null }, BY).then((x) =>
          act(stores, x._id, "start")
        ),
        ConflictError,
      );
    });

    await t.step("reports: 409 for another firmware, counts kept, the device's update", async () => {
      const first = inStage(r.stages[r.stage])[0];
      const outside = ids.find((id) => id !== "dev-039" && bucket(r._id, id) >= r.stages[r.stage])!;
      await rejectsWith(
        stores.deviceApi.status(outside, { firmwareId: v2._id, state: "downloading" }, PRODUCT),
        ConflictError,
        `firmwareId: device ${outside} is not being offered firmware ${v2._id} (its configuration names ${v1._id}).`,
      );
      await assert.rejects(
        stores.deviceApi.status("ghost", { firmwareId: v2._id, state: "failed" }, PRODUCT),
        NotFoundError,
      );
      await stores.deviceApi.status(first, { firmwareId: v2._id, state: "downloading", progress: 10 }, PRODUCT);
      let now = (await stores.rollouts.get(r._id))!;
      assert.equal(now.counts.downloading, 1);
      await stores.deviceApi.status(first, { firmwareId: v2._id, state: "installing" }, PRODUCT);
      now = (await stores.rollouts.get(r._id))!;
      assert.equal(now.counts.downloading, 0);
      assert.equal(now.counts.installing, 1);
      const d = (await stores.devices.get(first))!;
      assert.equal(d.update!.state, "installing");
      assert.equal(d.update!.firmwareId, v2._id);
      assert.equal(d.update!.progress, null);
      // the pinned device (custom firmware) is never targeted; its own firmware reports fine, outside any rollout
      await stores.deviceApi.status("dev-039", { firmwareId: v1._id, state: "installed" }, PRODUCT);
      assert.equal((await stores.rollouts.get(r._id))!.counts.installed, 0);
    });

    await t.step("every device of the stage installed: it advances by itself, and the history says so", async () => {
      const stage = (await stores.rollouts.get(r._id))!.stage;
      for (const id of inStage(r.stages[stage])) {
        await stores.deviceApi.status(id, { firmwareId: v2._id, state: "installed" }, PRODUCT);
      }
      const now = (await stores.rollouts.get(r._id))!;
      assert.ok(now.stage > stage, `stage ${now.stage} after ${stage}`);
      assert.equal(now.counts.inStage, inStage(r.stages[now.stage]).length);
      const history = (await stores.rollouts.history(r._id))!;
      assert.ok(history.length >= 1);
      assert.equal(history.at(-1)!.stage, now.stage);
      const page = (await stores.rollouts.devices(r._id, { state: "installed", page: 0, rowsPerPage: 100 }))!;
      assert.equal(page.total, inStage(r.stages[stage]).length);
      const pending = (await stores.rollouts.devices(r._id, { state: "pending", page: 0, rowsPerPage: 100 }))!;
      assert.equal(pending.total, now.counts.inStage - now.counts.installed);
    });

    await t.step("failures over the threshold pause it; resume accepts them; the last stage finishes it", async () => {
      let now = (await stores.rollouts.get(r._id))!;
      const pending = (await stores.rollouts.devices(r._id, { state: "pending", page: 0, rowsPerPage: 100 }))!.data;
      const limit = Math.floor(now.counts.inStage * 0.2);
      for (const d of pending.slice(0, limit + 1)) {
        await stores.deviceApi.status(d.deviceId, { firmwareId: v2._id, state: "failed", message: "bad" }, PRODUCT);
      }
      now = (await stores.rollouts.get(r._id))!;
      assert.equal(now.state, "paused");
      assert.match(now.pausedReason!, /^Paused automatically: \d+ of \d+ devices in stage \d failed/);
      // paused: devices already in the stage keep the firmware
      assert.equal((await stores.deviceApi.config(pending[0].deviceId, PRODUCT))!.firmware!._id, v2._id);
      const failed = (await stores.rollouts.devices(r._id, { state: "failed", page: 0, rowsPerPage: 100 }))!;
      assert.equal(failed.data[0].message, "bad");
      now = await act(stores, r._id, "resume");
      assert.equal(now.state, "running");
      assert.equal(now.pausedReason, null);
      while (now.state === "running") {
        const rest = (await stores.rollouts.devices(r._id, { state: "pending", page: 0, rowsPerPage: 100 }))!.data;
        assert.ok(rest.length > 0 || now.counts.inStage === 0);
        for (const d of rest) {
          await stores.deviceApi.status(d.deviceId, { firmwareId: v2._id, state: "installed" }, PRODUCT);
        }
        now = (await stores.rollouts.get(r._id))!;
      }
      assert.equal(now.state, "finished");
      assert.equal(now.stage, 2);
      assert.equal(now.counts.inStage, 39);
    });

    await t.step("promote makes it the default; a device that appears later joins by the same rule", async () => {
      const now = await act(stores, r._id, "promote");
      assert.equal(now.state, "finished");
      const type = (await stores.deviceTypes.list()).find((x) => x.name === MANAGED_TYPE)!;
      assert.equal(type.defaultFirmware, v2._id);
      await checkin(stores, "late-1");
      assert.equal((await stores.rollouts.get(r._id))!.counts.targeted, 40);
      assert.equal((await stores.deviceApi.config("late-1", PRODUCT))!.firmware!._id, v2._id);
      await stores.firmwares.remove(v1._id).catch(() => {}); // still dev-039's custom firmware: refused, fine
      await stores.devices.remove("late-1");
      assert.equal((await stores.rollouts.get(r._id))!.counts.targeted, 39);
    });

    await t.step("every action and every automatic step is in the audit trail, in order", async () => {
      const page = await stores.audit.list({ targetType: "rollout", targetId: r._id }, 0, 100);
      const actions = page.data.map((e) => e.action).reverse();
      assert.equal(actions[0], "rollout.create");
      assert.equal(actions[1], "rollout.start");
      assert.ok(actions.includes("rollout.auto_advance"));
      assert.ok(actions.includes("rollout.auto_pause"));
      assert.ok(actions.includes("rollout.resume"));
      assert.equal(actions.at(-1), "rollout.promote");
      const pause = page.data.find((e) => e.action === "rollout.auto_pause")!;
      assert.equal(pause.actor.type, "system");
      assert.equal(pause.details.state, "paused");
      assert.equal((pause.details.after as { report: { state: string } }).report.state, "failed");
      const finished = page.data.find((e) => e.action === "rollout.auto_advance" && e.details.finished === true)!;
      assert.equal(finished.details.state, "finished");
      assert.equal((await stores.audit.verify()).firstBad, null);
    });
  });

  storeTest(
    engine,
    options,
    "rollouts: cancel returns the devices that did not install it to the default",
    async (stores) => {
      await stores.deviceTypes.ensure(PRODUCT);
      const v1 = await addFirmware(stores, "v1.xz");
      const v3 = await addFirmware(stores, "v3.xz");
      await setDefault(stores, v1._id);
      const pt = await addProductType(stores, "Kids");
      const ids = Array.from({ length: 20 }, (_, i) => `k-${i}`);
      for (const id of ids) {
        await checkin(stores, id);
        await stores.devices.patch(id, { productTypeId: pt._id });
      }
      await checkin(stores, "adult");
      const r = await act(
        stores,
        (await stores.rollouts.create(
          { name: "kids v3", firmwareId: v3._id, productTypeId: pt._id, stages: [100], autoAdvance: false },
          BY,
        ))._id,
        "start",
      );
      assert.equal(r.counts.targeted, 20);
      assert.equal(r.counts.inStage, 20);
      assert.equal((await stores.deviceApi.config("adult", PRODUCT))!.firmware!._id, v1._id);
      await stores.deviceApi.status("k-0", { firmwareId: v3._id, state: "installed" }, PRODUCT);
      await stores.deviceApi.status("k-1", { firmwareId: v3._id, state: "downloading" }, PRODUCT);
      const cancelled = await act(stores, r._id, "cancel");
      assert.equal(cancelled.state, "cancelled");
      await assert.rejects(act(stores, r._id, "resume"), ConflictError);
      assert.equal((await stores.deviceApi.config("k-0", PRODUCT))!.firmware!._id, v3._id);
      assert.equal((await stores.deviceApi.config("k-1", PRODUCT))!.firmware!._id, v1._id);
      assert.equal((await stores.deviceApi.firmware("k-2", PRODUCT))!._id, v1._id);
      // a cancelled rollout's firmware may be deleted; the devices that installed it fall back to the default
      await stores.firmwares.remove(v3._id);
      assert.equal((await stores.deviceApi.config("k-0", PRODUCT))!.firmware!._id, v1._id);
    },
  );

  storeTest(engine, options, "rollouts: two instances settle one stage once", async (stores) => {
    const other = await options.another(stores);
    try {
      await stores.deviceTypes.ensure(PRODUCT);
      const v2 = await addFirmware(stores, "v2.xz");
      const ids = Array.from({ length: 30 }, (_, i) => `c-${i}`);
      for (const id of ids) await checkin(stores, id);
      const r = await act(
        stores,
        (await stores.rollouts.create({ name: "c", firmwareId: v2._id, productTypeId: null, stages: [50, 100] }, BY))
          ._id,
        "start",
      );
      const first = ids.filter((id) => bucket(r._id, id) < r.stages[r.stage]);
      await Promise.all(
        first.map((id, i) =>
          (i % 2 ? other : stores).deviceApi.status(id, { firmwareId: v2._id, state: "installed" }, PRODUCT)
        ),
      );
      const now = (await stores.rollouts.get(r._id))!;
      assert.equal(now.counts.installed, first.length);
      assert.equal(now.stage, r.stage + 1);
      assert.equal(now.counts.inStage, 30);
    } finally {
      await other.close();
    }
  });

  storeTest(
    engine,
    options,
    "rollouts: of rollouts created at the same instant, the later created is the newest",
    async (s) => {
      await s.deviceTypes.ensure(PRODUCT);
      await setDefault(s, (await addFirmware(s, "base.xz"))._id);
      await checkin(s, "same-ms");
      // One instant for every rollout (as two replicas or one fast machine within a millisecond): only the creation
      // order can rank them. Five in turn: ranked at random, the order would hold by chance once in 120 runs.
      const instant = new Date().toISOString();
      const created: string[] = [];
      for (let i = 1; i <= 5; i++) {
        const fw = await addFirmware(s, `same-${i}.xz`);
        const r = await atInstant(
          instant,
          () => s.rollouts.create({ name: `same ${i}`, firmwareId: fw._id, productTypeId: null, stages: [100] }, BY),
        );
        assert.equal(r.createdAt, instant);
        await act(s, r._id, "start");
        assert.equal((await s.deviceApi.config("same-ms", PRODUCT))!.firmware!._id, fw._id, `offered after ${i}`);
        // Installed, it finishes (one running rollout per scope at a time) and still gives the device its firmware.
        await s.deviceApi.status("same-ms", { firmwareId: fw._id, state: "installed" }, PRODUCT);
        assert.equal((await s.rollouts.get(r._id))!.state, "finished");
        created.unshift(r._id);
        const inEffect = (await s.deviceApi.firmwareInEffect("same-ms", PRODUCT))!;
        assert.deepEqual([inEffect.source, inEffect.rolloutId, inEffect.firmwareId], ["rollout", r._id, fw._id]);
        assert.deepEqual((await s.rollouts.list()).map((x) => x._id), created, `listed newest first after ${i}`);
      }
    },
  );
}
