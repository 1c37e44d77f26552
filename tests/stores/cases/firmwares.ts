import assert from "node:assert/strict";
import { ConflictError, NotFoundError } from "../../../server/db/errors.ts";
import {
  addFirmware,
  checkin,
  type ConformanceOptions,
  firmwareRow,
  MANAGED_TYPE,
  PRODUCT,
  rejectsWith,
  storeTest,
} from "../fixtures.ts";

export function firmwareCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "firmwares: rows, names and deletion unless in use", async (stores, t) => {
    const { firmwares } = stores;
    await t.step("insert, list newest first (ties in insert order), get, nameTaken, ids", async () => {
      assert.deepEqual(await firmwares.list(), []);
      const at = new Date().toISOString();
      const rows = [firmwareRow("a.xz", at), firmwareRow("b.xz", at), firmwareRow("c.xz", "2000-01-01T00:00:00.000Z")];
      for (const row of rows) await firmwares.insert(row);
      assert.deepEqual(await firmwares.list(), [rows[1], rows[0], rows[2]]);
      assert.deepEqual(await firmwares.get(rows[0]._id), rows[0]);
      assert.equal(await firmwares.get("nope"), null);
      assert.equal(await firmwares.nameTaken("a.xz"), true);
      assert.equal(await firmwares.nameTaken("A.xz"), false);
      assert.deepEqual((await firmwares.ids()).sort(), rows.map((r) => r._id).sort());
    });

    await t.step("a name taken exactly as written is ConflictError", async () => {
      await rejectsWith(
        firmwares.insert(firmwareRow("a.xz")),
        ConflictError,
        "A firmware named a.xz was already uploaded; delete it first or rename the file.",
      );
      await firmwares.insert(firmwareRow("A.xz"));
    });

    await t.step("remove: NotFoundError; in use ConflictError naming every use; else deleted", async () => {
      await rejectsWith(firmwares.remove("nope"), NotFoundError, "No firmware with id nope.");
      const fw = await addFirmware(stores, "used.xz");
      await stores.deviceTypes.ensure(PRODUCT);
      const managed = (await stores.deviceTypes.list())[0];
      await stores.deviceTypes.setDefaultFirmware(managed._id, fw._id);
      await rejectsWith(
        firmwares.remove(fw._id),
        ConflictError,
        `Firmware used.xz cannot be deleted: it is the default firmware of device type ${MANAGED_TYPE}.`,
      );
      await checkin(stores, "d1");
      await stores.devices.patch("d1", { firmware: fw._id });
      await rejectsWith(
        firmwares.remove(fw._id),
        ConflictError,
        `Firmware used.xz cannot be deleted: it is the default firmware of device type ${MANAGED_TYPE} and it is the custom firmware of 1 device.`,
      );
      await stores.deviceTypes.setDefaultFirmware(managed._id, null);
      await checkin(stores, "d2");
      await stores.devices.patch("d2", { firmware: fw._id });
      await rejectsWith(
        firmwares.remove(fw._id),
        ConflictError,
        "Firmware used.xz cannot be deleted: it is the custom firmware of 2 devices.",
      );
      assert.deepEqual(await firmwares.get(fw._id), fw);
      await stores.devices.patch("d1", { firmware: null });
      await stores.devices.remove("d2");
      assert.deepEqual(await firmwares.remove(fw._id), fw);
      assert.equal(await firmwares.get(fw._id), null);
      assert.equal(await firmwares.nameTaken("used.xz"), false);
    });
  });

  storeTest(engine, options, "firmwares: the oldest other firmware with the same bytes (sha256)", async (stores) => {
    const { firmwares } = stores;
    const sha256 = "ab".repeat(32);
    const newer = { ...firmwareRow("newer.xz", "2024-01-02T00:00:00.000Z"), sha256 };
    const older = { ...firmwareRow("older.xz", "2024-01-01T00:00:00.000Z"), sha256 };
    const other = firmwareRow("other.xz");
    assert.equal(await firmwares.firstWithSha256(sha256), null);
    await firmwares.insert(newer);
    assert.equal(await firmwares.firstWithSha256(sha256, newer._id), null);
    assert.deepEqual(await firmwares.firstWithSha256(sha256), newer);
    await firmwares.insert(older);
    await firmwares.insert(other);
    assert.deepEqual(await firmwares.firstWithSha256(sha256), older);
    assert.deepEqual(await firmwares.firstWithSha256(sha256, newer._id), older);
    assert.deepEqual(await firmwares.firstWithSha256(sha256, older._id), newer);
    assert.equal(await firmwares.firstWithSha256(other.sha256, other._id), null);
    assert.equal(await firmwares.firstWithSha256("cd".repeat(32)), null);
    await firmwares.remove(older._id);
    assert.deepEqual(await firmwares.firstWithSha256(sha256, "nope"), newer);
  });
}
