import assert from "node:assert/strict";
import { addFirmware, type ConformanceOptions, MANAGED_TYPE, PRODUCT, storeTest } from "../fixtures.ts";

/** hawkBit DDI's store methods (docs/REQUIREMENTS.md §18), the same on every engine. */
export function ddiCases(engine: string, options: ConformanceOptions) {
  storeTest(
    engine,
    options,
    "DDI: a poll is a check-in; one action per assignment; feedback; withdrawal",
    async (stores, t) => {
      const { deviceApi, devices, deviceTypes } = stores;
      await deviceTypes.ensure(PRODUCT);
      const managed = (await deviceTypes.list()).find((d) => d.name === MANAGED_TYPE)!;
      const v1 = await addFirmware(stores, "ddi-v1.xz");
      const v2 = await addFirmware(stores, "ddi-v2.xz");
      await deviceTypes.setDefaultFirmware(managed._id, v1._id);

      await t.step("token mode: an unknown device is not registered", async () => {
        await assert.rejects(deviceApi.ddiPoll("ddi-ghost", PRODUCT, false), /ddi-ghost/);
        assert.equal(await devices.get("ddi-ghost"), null);
      });

      let first = 0;
      await t.step("shared mode registers, opens one action, and keeps its id while it stays open", async () => {
        // Two first polls at once share the one action that won.
        const [a, b] = await Promise.all([
          deviceApi.ddiPoll("ddi-1", PRODUCT, true),
          deviceApi.ddiPoll("ddi-1", PRODUCT, true),
        ]);
        assert.equal(a.deploymentBase, b.deploymentBase);
        first = a.deploymentBase!;
        assert.ok(first >= 1 && first <= 2 ** 31 - 1);
        assert.deepEqual(await deviceApi.ddiPoll("ddi-1", PRODUCT, true), {
          deploymentBase: first,
          cancelAction: null,
          attributesWanted: true,
        });
        const d = (await devices.get("ddi-1"))!;
        assert.ok(d.lastLoggedIn);
        assert.equal(d.versionInfo, null);
        const action = (await deviceApi.ddiAction("ddi-1", first))!;
        assert.deepEqual([action.state, action.firmware._id, action.firmware.sha1], ["open", v1._id, null]);
        assert.equal(await deviceApi.ddiAction("ddi-2", first), null);
      });

      await t.step("feedback is the status report; closing feedback closes the action", async () => {
        const fb = (execution: string, finished: string, details: string[] = []) => ({
          status: { execution, result: { finished }, details },
        });
        await deviceApi.ddiFeedback("ddi-1", first, "deployment", fb("download", "none"), PRODUCT);
        assert.equal((await devices.get("ddi-1"))!.update?.state, "downloading");
        await deviceApi.ddiFeedback("ddi-1", first, "deployment", fb("closed", "success", ["ok"]), PRODUCT);
        const update = (await devices.get("ddi-1"))!.update!;
        assert.deepEqual([update.state, update.firmwareId, update.message], ["installed", v1._id, "ok"]);
        assert.equal((await deviceApi.ddiAction("ddi-1", first))!.state, "closed");
        assert.equal((await deviceApi.ddiPoll("ddi-1", PRODUCT, true)).deploymentBase, null);
        await assert.rejects(
          deviceApi.ddiFeedback("ddi-2", first, "deployment", fb("closed", "success"), PRODUCT),
          /no action|ddi-2/,
        );
      });

      await t.step("a new default opens a new action; a pin withdraws it until acknowledged", async () => {
        await deviceTypes.setDefaultFirmware(managed._id, v2._id);
        const second = (await deviceApi.ddiPoll("ddi-1", PRODUCT, true)).deploymentBase!;
        assert.ok(second > first);
        await devices.patch("ddi-1", { firmware: v1._id });
        assert.deepEqual(await deviceApi.ddiPoll("ddi-1", PRODUCT, true), {
          deploymentBase: null,
          cancelAction: second,
          attributesWanted: true,
        });
        await deviceApi.ddiFeedback("ddi-1", second, "cancel", { status: { execution: "closed" } }, PRODUCT);
        assert.equal((await deviceApi.ddiAction("ddi-1", second))!.state, "canceled");
        // v1 is installed already: nothing is linked.
        assert.deepEqual(await deviceApi.ddiPoll("ddi-1", PRODUCT, true), {
          deploymentBase: null,
          cancelAction: null,
          attributesWanted: true,
        });
      });

      await t.step("configData replaces the attributes; the same report changes nothing", async () => {
        await deviceApi.ddiConfigData("ddi-1", { serial: "SN-1", board: "b" });
        const once = (await devices.get("ddi-1"))!;
        assert.deepEqual(once.attributes, { board: "b", serial: "SN-1" });
        await deviceApi.ddiConfigData("ddi-1", { board: "b", serial: "SN-1" });
        assert.equal((await devices.get("ddi-1"))!.etag, once.etag);
        assert.equal((await deviceApi.ddiPoll("ddi-1", PRODUCT, true)).attributesWanted, false);
        await assert.rejects(deviceApi.ddiConfigData("ddi-none", {}), /ddi-none/);
      });

      await t.step("digests are stored once", async () => {
        await deviceApi.setFirmwareDigests(v1._id, { sha1: "a".repeat(40), md5: "b".repeat(32) });
        await deviceApi.setFirmwareDigests(v1._id, { sha1: "c".repeat(40), md5: "d".repeat(32) });
        const action = (await deviceApi.ddiAction("ddi-1", first))!;
        assert.deepEqual([action.firmware.sha1, action.firmware.md5], ["a".repeat(40), "b".repeat(32)]);
      });
    },
  );
}
