import assert from "node:assert/strict";
import type { DemoData } from "../../../server/db/stores.ts";
import {
  type ConformanceOptions,
  firmwareRow,
  INFO,
  listTreatments,
  MANAGED_TYPE,
  PRODUCT,
  storeTest,
} from "../fixtures.ts";

export function demoCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "demo: seeds an empty database in one go", async (stores, t) => {
    assert.equal(await stores.demo.isEmpty(), true);
    await stores.deviceTypes.ensure(PRODUCT);
    await stores.operators.add("op@example.com", "h", "operator");
    assert.equal(await stores.demo.isEmpty(), true, "operators and device types do not count");
    const [stable, candidate] = [firmwareRow("stable.xz"), firmwareRow("rc.xz")];
    for (const f of [stable, candidate]) await stores.firmwares.insert(f);
    assert.equal(await stores.demo.isEmpty(), false, "firmwares count");

    const data: DemoData = {
      defaultFirmware: { deviceType: MANAGED_TYPE, firmwareId: stable._id },
      treatments: ["T1", "T2", "T3"].map((name, i) => ({
        name,
        category: "c",
        use: "u",
        phasesJson: "[]",
        images: [],
        createdAt: `2025-01-0${i + 1}T00:00:00.000Z`,
        updatedAt: `2025-02-0${i + 1}T00:00:00.000Z`,
      })),
      productTypes: [
        {
          name: "Home",
          theme: { logo: "home" },
          modules: [{ name: "base", isDefault: true, treatments: ["T1"] }, {
            name: "extra",
            isDefault: false,
            treatments: ["T2", "T3"],
          }],
        },
        { name: "Empty", theme: {}, modules: [] },
      ],
      devices: [
        { deviceId: "plain", checkins: [{ at: "2025-03-01T00:00:00.000Z", versionInfo: INFO }] },
        {
          deviceId: "configured",
          checkins: [
            { at: "2025-03-01T00:00:00.000Z", versionInfo: INFO },
            { at: "2025-03-05T00:00:00.000Z", versionInfo: { ...INFO, app: "2" } },
          ],
          settings: {
            productType: "Home",
            modules: ["extra"],
            additionalTreatments: ["T3"],
            firmware: candidate._id,
            updatedAt: "2025-03-03T00:00:00.000Z",
          },
        },
      ],
    };
    await t.step("everything lands, referred to by name, with the given timestamps", async () => {
      await stores.demo.seed(data);
      const treatments = await listTreatments(stores);
      assert.deepEqual(treatments.map((x) => [x.name, x.createdAt, x.updatedAt]), [
        ["T1", "2025-01-01T00:00:00.000Z", "2025-02-01T00:00:00.000Z"],
        ["T2", "2025-01-02T00:00:00.000Z", "2025-02-02T00:00:00.000Z"],
        ["T3", "2025-01-03T00:00:00.000Z", "2025-02-03T00:00:00.000Z"],
      ]);
      const id = Object.fromEntries(treatments.map((x) => [x.name, x._id]));
      const types = await stores.productTypes.list();
      assert.deepEqual(types.map((p) => p.name), ["Empty", "Home"]);
      const home = types[1];
      assert.deepEqual(home.theme, { logo: "home" });
      assert.deepEqual(home.modules.map((m) => [m.name, m.isDefault, m.treatmentIds]), [
        ["base", true, [id.T1]],
        ["extra", false, [id.T2, id.T3]],
      ]);
      const plain = (await stores.devices.get("plain"))!;
      assert.deepEqual([plain.createdAt, plain.updatedAt, plain.lastLoggedIn, plain.productTypeId], [
        "2025-03-01T00:00:00.000Z",
        "2025-03-01T00:00:00.000Z",
        "2025-03-01T00:00:00.000Z",
        null,
      ]);
      const configured = (await stores.devices.get("configured"))!;
      assert.deepEqual(configured, {
        deviceId: "configured",
        productTypeId: home._id,
        moduleIds: [home.modules[1]._id],
        additionalTreatmentIds: [id.T3],
        firmware: candidate._id,
        createdAt: "2025-03-01T00:00:00.000Z",
        updatedAt: "2025-03-03T00:00:00.000Z",
        lastLoggedIn: "2025-03-05T00:00:00.000Z",
        versionInfo: { ...INFO, app: "2" },
        update: null,
        etag: configured.etag,
        admission: "accepted",
        credentialsIssuedAt: null,
        attributes: null,
      });
      assert.equal((await stores.deviceTypes.list())[0].defaultFirmware, stable._id);
      assert.deepEqual((await stores.deviceApi.firmware("plain", PRODUCT))?._id, stable._id);
    });
  });
}
