import assert from "node:assert/strict";
import { join } from "node:path";
import { DEVICE_API_KEY, listFiles, startServer } from "../../testing/server.ts";
import { DeviceClient } from "../../shared/client.ts";
import type { ApiClient } from "../../shared/client.ts";
import { fakePng, fakeXz, makeImportFile, runScript, sha256Hex } from "./helpers.ts";

async function allDevices(api: ApiClient) {
  const devices = [];
  for (let page = 0;; page++) {
    const { data, total } = await api.listDevices({ page, rowsPerPage: 100 });
    devices.push(...data);
    if (devices.length >= total || data.length === 0) return devices;
  }
}

async function firmwareBytes(api: ApiClient, id: string) {
  return await sha256Hex(new Uint8Array(await (await api.firmwareFile(id)).arrayBuffer()));
}

Deno.test("backup while the server runs and writes, restore into a new DATA_DIR: same data", async () => {
  const work = await Deno.makeTempDir({ prefix: "console-ops-backup-" });
  try {
    await using srv = await startServer();
    const api = await srv.login();

    // Data of every kind: treatments with images, product types with modules, firmwares, devices.
    const importFile = makeImportFile(join(work, "t.sqlite3"), [
      { name: "Back pain", category: "pain", phases: [{ duration: 60, channels: [10, 12] }], images: [fakePng(3000)] },
      { name: "Knee", phases: [{ duration: 30, channels: [5] }, { duration: 90, channels: [6, 7, 8] }] },
    ]);
    await api.importTreatments(new File([await Deno.readFile(importFile)], "t.sqlite3"));
    const treatments = await api.listTreatments();
    const pt = await api.createProductType("Baby Pro");
    await api.patchProductType({
      _id: pt._id,
      name: pt.name,
      theme: { primary: "#078686" },
      modules: [{ name: "Basics", isDefault: true, treatmentIds: treatments.map((t) => t._id) }],
    });
    const fwBytes = [fakeXz(300 * 1024), fakeXz(70 * 1024)];
    const fw1 = await api.uploadFirmware(new File([fwBytes[0] as Uint8Array<ArrayBuffer>], "fw-1.0.xz"));
    const fw2 = await api.uploadFirmware(new File([fwBytes[1] as Uint8Array<ArrayBuffer>], "fw-2.0.xz"));
    const [deviceType] = await api.listDeviceTypes();
    await api.patchDeviceType({ _id: deviceType._id, defaultFirmware: fw2._id });
    const versionInfo = { app: "1.2.3", os: "7", channels: ["a", "b"] };
    for (let i = 0; i < 30; i++) {
      await new DeviceClient(`dev-${String(i).padStart(3, "0")}`, { baseUrl: srv.url, apiKey: DEVICE_API_KEY })
        .checkin({ versionInfo });
    }
    await api.patchDevice({ deviceId: "dev-007", productTypeId: pt._id, firmware: fw1._id });

    const expected = {
      productTypes: await api.listProductTypes(),
      treatments: await api.listTreatments(),
      firmwares: await api.listFirmwares(),
      deviceTypes: await api.listDeviceTypes(),
      devices: await allDevices(api),
    };

    // Devices keep checking in during the backup: it must not block them nor be torn by them.
    let writing = true;
    let written = 0;
    const load = (async () => {
      while (writing) {
        await new DeviceClient(`load-${written++}`, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
          versionInfo,
        });
      }
    })();
    const backupDir = join(work, "backups", "first");
    const env = { DATA_DIR: srv.dataDir };
    const made = await runScript("backup", [backupDir], env);
    writing = false;
    await load;
    assert.equal(made.code, 0, made.stderr);
    assert.ok(written > 0);
    assert.match(made.stdout, /console\.sqlite3/);
    assert.match(made.stdout, new RegExp(`firmwares/${fw1._id}\\.xz`));
    assert.match(made.stdout, /jwt_secret/);
    assert.deepEqual(
      await listFiles(backupDir),
      [
        "backup.json",
        "console.sqlite3",
        `firmwares/${fw1._id}.xz`,
        `firmwares/${fw2._id}.xz`,
        "jwt_secret",
      ].sort(),
    );
    assert.deepEqual(await listFiles(join(work, "backups")), (await listFiles(backupDir)).map((f) => `first/${f}`));

    const again = await runScript("backup", [backupDir], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not empty/);

    const restoredDir = join(work, "restored");
    const restored = await runScript("restore", [backupDir], { DATA_DIR: restoredDir });
    assert.equal(restored.code, 0, restored.stderr);
    const twice = await runScript("restore", [backupDir], { DATA_DIR: restoredDir });
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /not empty/);

    await using copy = await startServer({ dataDir: restoredDir });
    // The signing secret came along: a token of the original server is valid on the copy.
    const copyApi = copy.client(api.token);
    assert.deepEqual(await copyApi.listProductTypes(), expected.productTypes);
    assert.deepEqual(await copyApi.listTreatments(), expected.treatments);
    assert.deepEqual(await copyApi.listFirmwares(), expected.firmwares);
    assert.deepEqual(await copyApi.listDeviceTypes(), expected.deviceTypes);
    const devices = await allDevices(copyApi);
    assert.deepEqual(devices.filter((d) => !d.deviceId.startsWith("load-")), expected.devices);
    const loadIds = devices.filter((d) => d.deviceId.startsWith("load-")).map((d) => Number(d.deviceId.slice(5)));
    // A snapshot at one instant: check-ins 0..k-1 are all in it, none after.
    assert.deepEqual(loadIds.sort((a, b) => a - b), [...loadIds.keys()]);
    assert.equal(await firmwareBytes(copyApi, fw1._id), await sha256Hex(fwBytes[0]));
    assert.equal(await firmwareBytes(copyApi, fw2._id), await sha256Hex(fwBytes[1]));
    const imageId = expected.treatments.find((t) => t.images.length)!.images[0];
    assert.deepEqual(
      new Uint8Array(await (await copyApi.treatmentImage(imageId)).arrayBuffer()),
      new Uint8Array(await (await api.treatmentImage(imageId)).arrayBuffer()),
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("backup and restore refuse what they must not touch", async () => {
  const work = await Deno.makeTempDir({ prefix: "console-ops-backup-" });
  try {
    const noDb = await runScript("backup", [join(work, "b")], { DATA_DIR: join(work, "nothing") });
    assert.equal(noDb.code, 1);
    assert.match(noDb.stderr, /no database/);
    const usage = await runScript("backup", [], {});
    assert.equal(usage.code, 2);

    await using srv = await startServer();
    await Deno.mkdir(join(work, "full"));
    await Deno.writeTextFile(join(work, "full", "x"), "x");
    const full = await runScript("backup", [join(work, "full")], { DATA_DIR: srv.dataDir });
    assert.equal(full.code, 1);
    assert.match(full.stderr, /not empty/);
    const inside = await runScript("backup", [join(srv.dataDir, "tmp", "b")], { DATA_DIR: srv.dataDir });
    assert.equal(inside.code, 1);

    // An empty target directory is fine; a damaged backup is refused before anything is written.
    await Deno.mkdir(join(work, "empty"));
    const ok = await runScript("backup", [join(work, "empty")], { DATA_DIR: srv.dataDir });
    assert.equal(ok.code, 0, ok.stderr);
    const db = await Deno.open(join(work, "empty", "console.sqlite3"), { write: true });
    await db.write(new Uint8Array([1, 2, 3]));
    db.close();
    const damaged = await runScript("restore", [join(work, "empty")], { DATA_DIR: join(work, "target") });
    assert.equal(damaged.code, 1);
    assert.match(damaged.stderr, /does not match the manifest/);
    assert.deepEqual(await listFiles(join(work, "target")), []);
    const notBackup = await runScript("restore", [join(work, "full")], { DATA_DIR: join(work, "target") });
    assert.equal(notBackup.code, 1);
    assert.match(notBackup.stderr, /backup\.json/);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
