/** How a device's configuration is resolved (docs/REQUIREMENTS.md §6, §13), through the app in process: no socket needed. */
import assert from "node:assert/strict";
import type { ModuleInput } from "../../shared/schemas/product_type.ts";
import { makeImportDb } from "../../testing/import_db.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { PRODUCT, testApp } from "../routes/app.ts";

const VERSION = { app: "1.0.0", os: "os", channels: ["a"] };

const channel = (current: number, frequency = 80) => ({
  current,
  frequency,
  polarity: "biphasic symmetric",
  riseTime: 500,
  holdTime: 5000,
  fallTime: 500,
});

Deno.test("device config resolution", async (t) => {
  await using srv = await testApp();
  const api = await srv.api();
  const dir = await Deno.makeTempDir({ prefix: "device-config-" });
  const device = srv.device("cfg-1");

  const file = `${dir}/t.sqlite3`;
  makeImportDb(file, [
    { name: "T1 back", category: "Pain relief", use: "back", phases: [{ duration: 600, channels: [channel(20)] }] },
    { name: "T2 knee", category: "Pain relief", phases: [{ duration: 300, channels: [channel(10), channel(12)] }] },
    { name: "T3 calf", phases: [{ duration: 60, channels: [] }, { duration: 120, channels: [channel(30, 40)] }] },
    { name: "T4 pelvic", category: "Pelvic floor", phases: [{ duration: 900, channels: [channel(15, 50)] }] },
    { name: "T5 neck", category: "Pain relief", phases: [] },
  ]);
  assert.equal((await api.importTreatments(await fileSource(file))).created, 5);
  const treatments = await api.listTreatments();
  const tid = (prefix: string) => treatments.find((tr) => tr.name.startsWith(prefix))!._id;
  const [t1, t2, t3, t4, t5] = ["T1", "T2", "T3", "T4", "T5"].map(tid);

  const pt = await api.createProductType("Config type");
  const modules: ModuleInput[] = [
    { name: "Base", isDefault: true, treatmentIds: [t1, t2] },
    { name: "Extra", isDefault: false, treatmentIds: [t2, t3] },
    { name: "Pelvic", isDefault: false, treatmentIds: [t4] },
    { name: "Also default", isDefault: true, treatmentIds: [] },
  ];
  const saved = await api.patchProductType({ _id: pt._id, name: pt.name, theme: { primary: "#078686" }, modules });
  const [mBase, mExtra, mPelvic, mAlso] = saved.modules;
  const other = await api.createProductType("Other type");
  // another type's default module must never leak into this device's config
  await api.patchProductType({
    _id: other._id,
    name: other.name,
    modules: [{ name: "Other default", isDefault: true, treatmentIds: [t3] }],
  });

  const [fwA, fwB] = [
    await api.uploadFirmware(await fileSource(await makeXzFile(dir, "cfg-a.xz", "firmware A"))),
    await api.uploadFirmware(await fileSource(await makeXzFile(dir, "cfg-b.xz", "firmware B"))),
  ];
  const ref = (f: typeof fwA) => ({ _id: f._id, name: f.name, size: f.size, sha256: f.sha256, signature: null });
  const managed = (await api.listDeviceTypes()).find((d) => d.name === `jeecee_baby_${PRODUCT}`)!;

  await t.step("a new device has no product type, modules, treatments or firmware", async () => {
    const config = await device.checkin({ versionInfo: VERSION });
    assert.deepEqual(config, { deviceId: "cfg-1", productType: null, modules: [], treatments: [], firmware: null });
  });

  await t.step("default modules plus enabled ones, in module order, with their treatments once", async () => {
    await api.patchDevice({ deviceId: "cfg-1", productTypeId: pt._id, moduleIds: [mPelvic._id] });
    const config = await device.config();
    assert.deepEqual(config.productType, { _id: pt._id, name: "Config type", theme: { primary: "#078686" } });
    assert.deepEqual(config.modules, [
      { _id: mBase._id, name: "Base", isDefault: true },
      { _id: mPelvic._id, name: "Pelvic", isDefault: false },
      { _id: mAlso._id, name: "Also default", isDefault: true },
    ]);
    assert.deepEqual(config.treatments.map((tr) => tr._id), [t1, t2, t4]);
    assert.ok(!config.modules.some((m) => m._id === mExtra._id), "a module neither default nor enabled is left out");
  });

  await t.step("additional treatments come after, each treatment only once, as full Treatment objects", async () => {
    await api.patchDevice({
      deviceId: "cfg-1",
      moduleIds: [mPelvic._id, mExtra._id],
      additionalTreatmentIds: [t5, t4, t1],
    });
    const config = await device.checkin({ versionInfo: VERSION });
    assert.deepEqual(config.modules.map((m) => m._id), [mBase._id, mExtra._id, mPelvic._id, mAlso._id]);
    assert.deepEqual(config.treatments.map((tr) => tr._id), [t1, t2, t3, t4, t5]);
    for (const tr of config.treatments) assert.deepEqual(tr, await api.getTreatment(tr._id));
  });

  await t.step("reordering the product type's modules reorders the config", async () => {
    await api.patchProductType({
      _id: pt._id,
      name: pt.name,
      modules: [saved.modules[2], saved.modules[0], saved.modules[1], saved.modules[3]],
    });
    const config = await device.config();
    assert.deepEqual(config.modules.map((m) => m._id), [mPelvic._id, mBase._id, mExtra._id, mAlso._id]);
    assert.deepEqual(config.treatments.map((tr) => tr._id), [t4, t1, t2, t3, t5]);
  });

  await t.step("without a product type only the additional treatments remain", async () => {
    await api.patchDevice({ deviceId: "cfg-1", productTypeId: null, moduleIds: [] });
    const config = await device.config();
    assert.equal(config.productType, null);
    assert.deepEqual(config.modules, []);
    assert.deepEqual(config.treatments.map((tr) => tr._id), [t5, t4, t1]);
  });

  await t.step("firmware: none, then the managed type's default, then the custom one wins", async () => {
    assert.equal((await device.config()).firmware, null);
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: fwA._id });
    assert.deepEqual((await device.config()).firmware, ref(fwA));
    await api.patchDevice({ deviceId: "cfg-1", firmware: fwB._id });
    assert.deepEqual((await device.checkin({ versionInfo: VERSION })).firmware, ref(fwB));
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: null });
    assert.deepEqual((await device.config()).firmware, ref(fwB), "custom firmware without any default");
    await api.patchDevice({ deviceId: "cfg-1", firmware: null });
    assert.equal((await device.config()).firmware, null);
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: fwB._id });
    assert.deepEqual((await device.config()).firmware, ref(fwB));
  });

  await t.step("a deleted product type leaves the device with its additional treatments only", async () => {
    await api.patchDevice({ deviceId: "cfg-1", productTypeId: pt._id, moduleIds: [mExtra._id] });
    await api.deleteProductType(pt._id);
    const config = await device.config();
    assert.equal(config.productType, null);
    assert.deepEqual(config.modules, []);
    assert.deepEqual(config.treatments.map((tr) => tr._id), [t5, t4, t1]);
  });

  await Deno.remove(dir, { recursive: true });
});
