import assert from "node:assert/strict";
import { InvalidError, NotFoundError } from "../../../server/db/errors.ts";
import { addFirmware, type ConformanceOptions, MANAGED_TYPE, PRODUCT, rejectsWith, storeTest } from "../fixtures.ts";

export function deviceTypeCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "device types: the managed type and its default firmware", async (stores, t) => {
    const { deviceTypes } = stores;
    await t.step("ensure creates the managed type once", async () => {
      assert.deepEqual(await deviceTypes.list(), []);
      await deviceTypes.ensure(PRODUCT);
      await deviceTypes.ensure(PRODUCT);
      await deviceTypes.ensure("another");
      const list = await deviceTypes.list();
      assert.deepEqual(list.map((d) => [d.name, d.defaultFirmware]), [["jeecee_baby_another", null], [
        MANAGED_TYPE,
        null,
      ]]);
    });
    const managed = (await deviceTypes.list()).find((d) => d.name === MANAGED_TYPE)!;

    await t.step("setDefaultFirmware: NotFoundError, InvalidError with the messages, nothing written", async () => {
      const fw = await addFirmware(stores, "default.xz");
      await rejectsWith(deviceTypes.setDefaultFirmware("nope", fw._id), NotFoundError, "No device type with id nope.");
      await rejectsWith(
        deviceTypes.setDefaultFirmware(managed._id, "fw-x"),
        InvalidError,
        "defaultFirmware: no firmware with id fw-x.",
      );
      assert.deepEqual((await deviceTypes.list()).find((d) => d._id === managed._id), managed);
    });

    await t.step("sets and clears, answering the type as saved", async () => {
      const fw = await addFirmware(stores, "default-2.xz");
      const set = await deviceTypes.setDefaultFirmware(managed._id, fw._id);
      assert.deepEqual(set, { ...managed, defaultFirmware: fw._id, etag: set.etag });
      const cleared = await deviceTypes.setDefaultFirmware(managed._id, null);
      assert.deepEqual(cleared, { ...managed, etag: cleared.etag });
      assert.deepEqual(await deviceTypes.get(managed._id), cleared);
    });
  });
}
