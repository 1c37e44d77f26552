import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { inflateSync } from "node:zlib";
import { DeviceClient } from "../../shared/client.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { startXzCheck } from "../../server/files/xz_check.ts";

/** Checks a PNG independently of our encoder: signature, chunk CRCs, IHDR and the inflated pixel data size. */
function assertPng(bytes: Uint8Array) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8, width = 0, height = 0;
  const idat: Uint8Array[] = [];
  const types: string[] = [];
  while (offset < bytes.length) {
    const length = view.getUint32(offset);
    const type = new TextDecoder().decode(bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    const crc = view.getUint32(offset + 8 + length);
    assert.equal(crc, crc32(bytes.subarray(offset + 4, offset + 8 + length)), `CRC of ${type}`);
    types.push(type);
    if (type === "IHDR") {
      width = view.getUint32(offset + 8);
      height = view.getUint32(offset + 12);
      assert.deepEqual([...data.subarray(8)], [8, 2, 0, 0, 0]);
    }
    if (type === "IDAT") idat.push(data);
    offset += 12 + length;
  }
  assert.equal(types[0], "IHDR");
  assert.equal(types.at(-1), "IEND");
  assert.ok(width > 0 && height > 0);
  const raw = inflateSync(Buffer.concat(idat));
  assert.equal(raw.length, height * (1 + width * 3));
}

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

Deno.test("DEMO=1 fills an empty database, once, with data that shows through the API", async (t) => {
  await using srv = await startServer({ env: { DEMO: "1" }, keepData: false });
  const api = await srv.login();

  await t.step("product types with default and optional modules", async () => {
    const types = await api.listProductTypes();
    assert.ok(types.length >= 3, `${types.length} product types`);
    const modules = types.flatMap((pt) => pt.modules);
    assert.ok(modules.some((m) => m.isDefault) && modules.some((m) => !m.isDefault));
    assert.ok(modules.every((m) => m.name.trim().length > 0));
  });

  await t.step("at least 40 treatments, each with 1-6 phases of 1-4 channels and 1-2 PNG images", async () => {
    const treatments = await api.listTreatments();
    assert.ok(treatments.length >= 40, `${treatments.length} treatments`);
    assert.equal(new Set(treatments.map((tr) => tr.name)).size, treatments.length);
    for (const tr of treatments) {
      assert.ok(tr.phases.length >= 1 && tr.phases.length <= 6, tr.name);
      assert.ok(tr.images.length >= 1 && tr.images.length <= 2, tr.name);
      assert.ok(tr.category && tr.use, tr.name);
      for (const phase of tr.phases) {
        assert.ok(phase.duration > 0);
        assert.ok(phase.channels.length >= 1 && phase.channels.length <= 4, tr.name);
        for (const ch of phase.channels) {
          assert.ok(ch.current > 0 && ch.current <= 100, `${tr.name}: ${ch.current} mA`);
          assert.ok(ch.frequency > 0 && ch.frequency <= 150, `${tr.name}: ${ch.frequency} Hz`);
          assert.ok(ch.polarity.length > 0);
        }
      }
    }
    for (const tr of [treatments[0], treatments[treatments.length - 1]]) {
      for (const id of tr.images) {
        const res = await api.raw("GET", `treatment_images/${id}`);
        assert.equal(res.headers.get("content-type"), "image/png");
        assertPng(new Uint8Array(await res.arrayBuffer()));
      }
    }
  });

  await t.step("two firmwares, one the managed device type's default, both downloadable", async () => {
    const firmwares = await api.listFirmwares();
    assert.equal(firmwares.length, 2);
    const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
    assert.ok(firmwares.some((f) => f._id === managed.defaultFirmware));
    for (const f of firmwares) {
      const bytes = new Uint8Array(await (await api.firmwareFile(f._id)).arrayBuffer());
      assert.deepEqual([...bytes.subarray(0, 6)], [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
      assert.equal(bytes.length, f.size);
      assert.equal(createHash("sha256").update(bytes).digest("hex"), f.sha256);
      const check = startXzCheck();
      await check.write(bytes);
      assert.equal(await check.finish(), null, `${f.name} is a complete, valid xz file`);
    }
  });

  await t.step("at least 250 devices that checked in, some configured", async () => {
    const first = await api.listDevices({ rowsPerPage: 100 });
    assert.ok(first.total >= 250, `${first.total} devices`);
    const all = [...first.data];
    for (let page = 1; page * 100 < first.total; page++) {
      all.push(...(await api.listDevices({ page, rowsPerPage: 100 })).data);
    }
    assert.ok(all.every((d) => d.lastLoggedIn && d.versionInfo && d.createdAt <= d.lastLoggedIn));
    assert.ok(all.some((d) => d.productTypeId) && all.some((d) => !d.productTypeId));
    assert.ok(all.some((d) => d.moduleIds.length > 0));
    assert.ok(all.some((d) => d.additionalTreatmentIds.length > 0));
    assert.ok(all.some((d) => d.firmware));

    const configured = all.find((d) => d.productTypeId && d.moduleIds.length > 0)!;
    const device = new DeviceClient(configured.deviceId, { baseUrl: srv.url, apiKey: DEVICE_API_KEY });
    const config = await device.config();
    assert.equal(config.productType?._id, configured.productTypeId);
    assert.ok(config.modules.length >= configured.moduleIds.length);
    assert.ok(config.treatments.length > 0);
    assert.ok(config.firmware);
    const download = await device.firmware();
    assert.equal(download.headers.get("etag"), `"${config.firmware.sha256}"`);
    assert.equal((await download.arrayBuffer()).byteLength, config.firmware.size);
  });

  await t.step(
    "a finished rollout and one running at its second stage, counted from the devices' reports",
    async () => {
      const rollouts = await api.listRollouts();
      assert.deepEqual(rollouts.map((r) => [r.name, r.state, r.stage]), [
        ["Firmware 1.5.0-rc1, every device", "running", 1],
        ["JeeCee Sport: firmware 1.4.2", "finished", 3],
      ]);
      const [running, finished] = rollouts;
      const firmwares = await api.listFirmwares();
      const [stable, candidate] = ["1.4.2", "1.5.0-rc1"].map((v) =>
        firmwares.find((f) => f.name === `jeecee-baby-fw-${v}.xz`)!
      );
      assert.equal(finished.firmwareId, stable._id);
      assert.equal(running.firmwareId, candidate._id);
      const sport = (await api.listProductTypes()).find((pt) => pt.name === "JeeCee Sport")!;
      assert.equal(finished.productTypeId, sport._id);
      assert.equal(running.productTypeId, null);

      // Finished: the devices of the product type without a custom firmware that were seen since installed it, stage
      // by stage; the others never reported.
      const f = finished.counts;
      assert.equal(f.targeted, (await api.rolloutTargets(sport._id)).targeted);
      assert.ok(f.targeted >= 10, `${f.targeted} devices`);
      assert.deepEqual({ ...f, installed: 0 }, {
        targeted: f.targeted,
        inStage: f.targeted,
        downloading: 0,
        installing: 0,
        installed: 0,
        failed: 0,
        pending: f.targeted - f.installed,
      });
      assert.ok(f.installed >= f.targeted / 2 && f.installed <= f.targeted, JSON.stringify(f));
      assert.equal((await api.rolloutDevices(finished._id, { state: "pending" })).total, f.targeted - f.installed);

      // Running: every state reported in the second stage, and some devices still to report.
      const c = running.counts;
      assert.equal(c.targeted, (await api.rolloutTargets(null)).targeted);
      assert.ok(c.downloading >= 1 && c.installing >= 1 && c.installed >= 1 && c.failed === 1, JSON.stringify(c));
      assert.ok(c.downloading + c.installing + c.installed + c.failed < c.inStage, JSON.stringify(c));
      for (const state of ["downloading", "installing", "installed", "failed"] as const) {
        assert.equal((await api.rolloutDevices(running._id, { state, rowsPerPage: 1 })).total, c[state], state);
      }
      const pending = await api.rolloutDevices(running._id, { state: "pending", rowsPerPage: 1 });
      assert.equal(pending.total, c.inStage - c.downloading - c.installing - c.installed - c.failed);
      assert.equal(c.pending, c.inStage - c.installed - c.failed, "counts.pending: no final report");

      // The history spans the days the rollouts ran, and ends at the counts.
      for (const r of rollouts) {
        const history = await api.rolloutHistory(r._id);
        assert.ok(history.length >= 5, `${r.name}: ${history.length} points`);
        const { at: _, stage, ...last } = history.at(-1)!;
        const { targeted: _t, pending: _p, ...counts } = r.counts;
        assert.deepEqual([stage, last], [r.stage, counts]);
        assert.ok(Date.parse(history[0].at) < Date.now() - 2 * 86_400_000, history[0].at);
        assert.ok(r.createdAt <= history[0].at && history[0].at <= r.updatedAt, `${r.name}: ${history[0].at}`);
      }

      // The audit trail says when the demo wrote them (now), not the moments the rollouts show.
      const starts = await api.listAudit({ action: "rollout.start" });
      assert.deepEqual(starts.data.map((e) => e.target?.id).sort(), rollouts.map((r) => r._id).sort());
      assert.ok(starts.data.every((e) => Date.parse(e.at) > Date.now() - 10 * 60_000), JSON.stringify(starts.data));

      // A device's update state is its report; the device list filters on it; its configuration names the firmware.
      const [failed] = (await api.rolloutDevices(running._id, { state: "failed" })).data;
      const device = await api.getDevice(failed.deviceId);
      assert.deepEqual(
        { ...device.update, at: undefined },
        { firmwareId: candidate._id, state: "failed", progress: 70, message: failed.message, at: undefined },
      );
      assert.equal(device.update?.at, failed.at);
      assert.match(failed.message ?? "", /failed/);
      const installing = await api.listDevices({ update: "installing" });
      assert.equal(installing.total, c.installing);
      const client = new DeviceClient(failed.deviceId, { baseUrl: srv.url, apiKey: DEVICE_API_KEY });
      assert.equal((await client.config()).firmware?._id, candidate._id);
      // The firmware in effect follows the rollouts: the release candidate runs on the devices given it as their own
      // firmware and on the running rollout's stage.
      const custom = (await api.listDevices({ firmware: "custom" })).total;
      assert.equal((await api.listDevices({ firmware: candidate._id })).total, custom + c.inStage);

      // A device reports only what it learnt at a check-in: every report is at or before the device's last check-in.
      const reported = [...(await api.listDevices({ update: "installed", rowsPerPage: 100 })).data];
      for (const state of ["downloading", "installing", "failed"] as const) {
        reported.push(...(await api.listDevices({ update: state, rowsPerPage: 100 })).data);
      }
      assert.equal(reported.length, new Set(reported.map((d) => d.deviceId)).size);
      assert.ok(reported.length >= f.installed, `${reported.length} devices reported`);
      for (const d of reported) {
        assert.ok(d.update!.at <= d.lastLoggedIn!, `${d.deviceId}: ${d.update!.at} > ${d.lastLoggedIn}`);
      }

      // A device that installed the finished rollout's firmware and has not reported to the running one since.
      const reportedRc = new Set(
        (await api.rolloutDevices(running._id, { rowsPerPage: 100 })).data.filter((d) => d.state).map((d) =>
          d.deviceId
        ),
      );
      const done = (await api.rolloutDevices(finished._id, { rowsPerPage: 100 })).data
        .find((d) => d.state === "installed" && !reportedRc.has(d.deviceId))!;
      assert.deepEqual((await api.getDevice(done.deviceId)).update, {
        firmwareId: stable._id,
        state: "installed",
        progress: 100,
        message: null,
        at: done.at,
      });
    },
  );

  await t.step("a restart with DEMO=1 adds nothing to a database that holds data", async () => {
    const before = (await api.listDevices()).total;
    assert.equal(await srv.stop(), 0);
    await using again = await startServer({ env: { DEMO: "1" }, dataDir: srv.dataDir, keepData: true });
    const api2 = await again.login();
    assert.equal((await api2.listDevices()).total, before);
    assert.equal((await api2.listFirmwares()).length, 2);
    assert.match(again.output(), /already holds data/);
  });
});

Deno.test("DEMO=1 with DEVICE_AUTH=token (deno task demo): a few devices wait for admission", async () => {
  await using srv = await startServer({ env: { DEMO: "1", DEVICE_AUTH: "token" } });
  const api = await srv.login();
  const pending = await api.listDevices({ admission: "pending" });
  assert.equal(pending.total, 5);
  assert.ok(pending.data.every((d) => d.deviceId.startsWith("JCB-NEW-") && d.credentialsIssuedAt === null));
  const all = await api.deviceAdmission();
  assert.deepEqual(all.counts.pending, 5);
  assert.ok(all.counts.accepted >= 300);
  const task = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url))).tasks.demo;
  assert.match(task, /DEVICE_AUTH=token/);
});
