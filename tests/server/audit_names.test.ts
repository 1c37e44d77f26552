/**
 * GET audit names what its entries' details refer to by id (docs/REQUIREMENTS.md §17, docs/DECISIONS.md "Records that cannot
 * lie"): firmwares, product types, modules and treatments by their current names, and a firmware or product type
 * deleted since by the name its own entries gave it; device.update records what the changed fields held before.
 */
import assert from "node:assert/strict";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { generateTreatments, makeImportDb } from "../../testing/import_db.ts";
import { testApp } from "../routes/app.ts";

Deno.test("audit names: ids in details are named, deleted ones too; device changes keep what was before", async () => {
  await using srv = await testApp();
  const api = await srv.api();
  const tmp = await Deno.makeTempDir({ prefix: "audit-names-" });
  makeImportDb(`${tmp}/t.sqlite3`, generateTreatments(1, { phases: 1, channels: 1, namePrefix: "Named" }));
  await api.importTreatments(await fileSource(`${tmp}/t.sqlite3`));
  const [treatment] = await api.listTreatments();
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(tmp, "fw-2.5.0.xz")));
  await Deno.remove(tmp, { recursive: true });
  const type = await api.createProductType("Walker");
  const walker = await api.patchProductType({
    _id: type._id,
    name: "Walker",
    modules: [{ name: "Pelvic floor", isDefault: false, treatmentIds: [treatment._id] }],
  });
  const pelvic = walker.modules[0];
  await srv.device("NAMES-1").checkin({
    versionInfo: { app: "1", os: "1", channels: [] },
  });
  await api.patchDevice({ deviceId: "NAMES-1", productTypeId: type._id, firmware: fw._id });
  await api.patchDevice({
    deviceId: "NAMES-1",
    moduleIds: [pelvic._id],
    additionalTreatmentIds: [treatment._id],
  });

  let page = await api.listAudit({ targetId: "NAMES-1" });
  const [modules, first] = page.data;
  assert.deepEqual(first.details, {
    changes: { productTypeId: type._id, firmware: fw._id },
    before: { productTypeId: null, moduleIds: [], firmware: null },
  });
  assert.deepEqual(modules.details.before, { moduleIds: [], additionalTreatmentIds: [] });
  assert.deepEqual(page.names, {
    [fw._id]: "fw-2.5.0.xz",
    [type._id]: "Walker",
    [pelvic._id]: "Pelvic floor",
    [treatment._id]: treatment.name,
  });

  // Deleted since: still named, by its own entries.
  await api.patchDevice({ deviceId: "NAMES-1", productTypeId: null, firmware: null, additionalTreatmentIds: [] });
  await api.deleteFirmware(fw._id);
  await api.deleteProductType(type._id);
  page = await api.listAudit({ targetId: "NAMES-1" });
  assert.equal(page.names?.[fw._id], "fw-2.5.0.xz");
  assert.equal(page.names?.[type._id], "Walker");
  assert.equal(page.names?.[pelvic._id], undefined); // a module is no target of its own: "a deleted module"
});
