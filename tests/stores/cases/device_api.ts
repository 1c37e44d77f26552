import assert from "node:assert/strict";
import {
  addFirmware,
  addProductType,
  addTreatments,
  checkin,
  type ConformanceOptions,
  INFO,
  listTreatments,
  PRODUCT,
  storeTest,
  tick,
} from "../fixtures.ts";

export function deviceApiCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "device API: check-in creates, then updates only what it owns", async (stores, t) => {
    const { deviceApi, devices } = stores;
    await t.step("unknown devices: config null, firmware undefined", async () => {
      assert.equal(await deviceApi.config("dev", PRODUCT), null);
      assert.equal(await deviceApi.firmware("dev", PRODUCT), undefined);
    });

    await t.step("the first check-in creates the device and answers its configuration", async () => {
      const config = await checkin(stores, "dev");
      assert.deepEqual(config, { deviceId: "dev", productType: null, modules: [], treatments: [], firmware: null });
      const d = (await devices.get("dev"))!;
      assert.deepEqual(d, {
        deviceId: "dev",
        productTypeId: null,
        moduleIds: [],
        additionalTreatmentIds: [],
        firmware: null,
        createdAt: d.createdAt,
        updatedAt: d.createdAt,
        lastLoggedIn: d.createdAt,
        versionInfo: INFO,
        update: null,
        etag: d.etag,
        admission: "accepted",
        credentialsIssuedAt: null,
        attributes: null,
      });
      assert.equal(await deviceApi.firmware("dev", PRODUCT), null);
    });

    await t.step("the same version info moves lastLoggedIn only; another one moves updatedAt too", async () => {
      const first = (await devices.get("dev"))!;
      await tick();
      await checkin(stores, "dev", { channels: INFO.channels, os: INFO.os, app: INFO.app });
      const same = (await devices.get("dev"))!;
      assert.ok(same.lastLoggedIn! > first.lastLoggedIn!);
      assert.equal(same.updatedAt, first.updatedAt);
      await tick();
      const info = { app: "2.0.0", os: null, channels: [] };
      await checkin(stores, "dev", info);
      const changed = (await devices.get("dev"))!;
      assert.deepEqual(changed.versionInfo, info);
      assert.ok(changed.updatedAt > first.updatedAt);
      assert.equal(changed.updatedAt, changed.lastLoggedIn);
      assert.equal(changed.createdAt, first.createdAt);
    });

    await t.step("a check-in keeps the operator's settings", async () => {
      const tr = await addTreatments(stores, ["T"]);
      await devices.patch("dev", { additionalTreatmentIds: [tr.T] });
      const config = await checkin(stores, "dev");
      assert.deepEqual(config.treatments.map((x) => x.name), ["T"]);
      assert.deepEqual((await devices.get("dev"))!.additionalTreatmentIds, [tr.T]);
    });
  });

  storeTest(engine, options, "device API: configuration resolution", async (stores, t) => {
    const { deviceApi, devices } = stores;
    const tr = await addTreatments(stores, ["t1", "t2", "t3", "t4", "t5"]);
    const pt = await addProductType(stores, "Home", [
      ["defaults", true, [tr.t1, tr.t2]],
      ["optional", false, [tr.t3, tr.t1]],
      ["not enabled", false, [tr.t5]],
      ["defaults 2", true, [tr.t4]],
    ]);
    await stores.productTypes.update(pt._id, { name: "Home", theme: { primaryColor: "#000" }, modules: pt.modules });
    const [defaults, optional, , defaults2] = pt.modules;
    await checkin(stores, "dev");
    await devices.patch("dev", {
      productTypeId: pt._id,
      moduleIds: [optional._id],
      additionalTreatmentIds: [tr.t2, tr.t5],
    });

    await t.step("defaults and enabled modules in module order; treatments once, at their first place", async () => {
      const config = (await deviceApi.config("dev", PRODUCT))!;
      assert.deepEqual(config.productType, { _id: pt._id, name: "Home", theme: { primaryColor: "#000" } });
      assert.deepEqual(config.modules, [
        { _id: defaults._id, name: "defaults", isDefault: true },
        { _id: optional._id, name: "optional", isDefault: false },
        { _id: defaults2._id, name: "defaults 2", isDefault: true },
      ]);
      assert.deepEqual(config.treatments.map((x) => x.name), ["t1", "t2", "t3", "t4", "t5"]);
      const all = await listTreatments(stores);
      assert.deepEqual(config.treatments[0], all.find((x) => x.name === "t1"));
      assert.deepEqual(await checkin(stores, "dev"), config);
    });

    await t.step("firmware: the custom one, else the managed type's default, else null", async () => {
      const byDefault = await addFirmware(stores, "default.xz");
      const custom = await addFirmware(stores, "custom.xz");
      await stores.deviceTypes.ensure(PRODUCT);
      await stores.deviceTypes.ensure("other");
      const types = await stores.deviceTypes.list();
      const other = types.find((d) => d.name === "jeecee_baby_other")!;
      await stores.deviceTypes.setDefaultFirmware(other._id, custom._id);
      assert.equal((await deviceApi.config("dev", PRODUCT))!.firmware, null);
      const managed = types.find((d) => d.name === `jeecee_baby_${PRODUCT}`)!;
      await stores.deviceTypes.setDefaultFirmware(managed._id, byDefault._id);
      const ref = (f: typeof custom) => ({ _id: f._id, name: f.name, size: f.size, sha256: f.sha256 });
      assert.deepEqual((await deviceApi.config("dev", PRODUCT))!.firmware, ref(byDefault));
      assert.deepEqual(await deviceApi.firmware("dev", PRODUCT), ref(byDefault));
      await devices.patch("dev", { firmware: custom._id });
      assert.deepEqual((await checkin(stores, "dev")).firmware, ref(custom));
      assert.deepEqual(await deviceApi.firmware("dev", PRODUCT), ref(custom));
    });

    await t.step("without a product type: only the additional treatments", async () => {
      await devices.patch("dev", { productTypeId: null });
      const config = (await deviceApi.config("dev", PRODUCT))!;
      assert.deepEqual([config.productType, config.modules], [null, []]);
      assert.deepEqual(config.treatments.map((x) => x.name), ["t2", "t5"]);
    });
  });
}
