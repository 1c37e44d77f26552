/**
 * Quiet answers shared by the devices of one configuration (docs/DECISIONS.md, "Quiet answers shared by the devices of
 * one configuration"): for each input an answer reads of a device's own — a pin, a module enabled on it, a treatment of
 * its own, rollout membership, a DDI action — two devices of one configuration polled through `pollUrl` (answers held
 * there), then one changed alone through `api`; each must get its own answer, in either order. Run on two PostgreSQL
 * replicas (tests/postgres/checkin_replicas.test.ts) and on one SQLite server (shared_answers.test.ts). Needs
 * DEVICE_AUTH=token and DEVICE_ADMISSION=auto.
 */
import assert from "node:assert/strict";
import type { ApiClient } from "../../shared/client.ts";
import { DeviceClient } from "../../shared/client.ts";
import { DdiDevice, linkedAction } from "../../testing/ddi.ts";
import { bytesSource, fileSource } from "../../testing/files.ts";
import { makeImportDb } from "../../testing/import_db.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { DEVICE_API_KEY } from "../../testing/server.ts";

const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0"] };

export async function sharedAnswersCase(t: Deno.TestContext, api: ApiClient, pollUrl: string): Promise<void> {
  const b = { url: pollUrl };
  const dir = await Deno.makeTempDir({ prefix: "shared-answers-" });
  const file = `${dir}/t.sqlite3`;
  makeImportDb(file, [{ name: "T1 base", phases: [] }, { name: "T2 extra", phases: [] }, {
    name: "T3 own",
    phases: [],
  }]);
  await api.importTreatments(await fileSource(file));
  await Deno.remove(dir, { recursive: true });
  const treatments = await api.listTreatments();
  const [t1, t2, t3] = ["T1", "T2", "T3"].map((p) => treatments.find((tr) => tr.name.startsWith(p))!._id);
  const pt = await api.createProductType("Shared type");
  const { modules: [base, extra] } = await api.patchProductType({
    _id: pt._id,
    name: pt.name,
    modules: [
      { name: "Base", isDefault: true, treatmentIds: [t1] },
      { name: "Extra", isDefault: false, treatmentIds: [t2] },
    ],
  });
  const fw = await api.uploadFirmware(bytesSource("shared.xz", xzBytes("shared answers ".repeat(300))));

  /** Devices enrolled through B, of the product type, each checked in once (written) and once quiet. */
  const fleet = async (prefix: string, n: number) => {
    const clients: DeviceClient[] = [];
    for (let i = 0; i < n; i++) {
      const id = `${prefix}-${i}`;
      const answer = await new DeviceClient(id, { baseUrl: b.url, apiKey: DEVICE_API_KEY }).enroll({
        versionInfo: VERSION,
      });
      assert.ok("token" in answer);
      await api.patchDevice({ deviceId: id, productTypeId: pt._id });
      clients.push(new DeviceClient(id, { baseUrl: b.url, apiKey: answer.token }));
    }
    for (let i = 0; i < 2; i++) for (const c of clients) await c.checkin({ versionInfo: VERSION });
    return clients;
  };
  /**
   * Check-ins in the order changed, other, other, changed (B holds the first's answer before the second asks, whichever
   * is shared wrongly): each must be its device's own configuration, as A reads it.
   */
  const alternate = async (changed: DeviceClient, other: DeviceClient) => {
    for (const c of [changed, other, other, changed]) {
      const config = await c.checkin({ versionInfo: VERSION });
      assert.equal(config.deviceId, c.deviceId);
      const device = await api.getDevice(c.deviceId);
      const own = device.moduleIds.includes(extra._id);
      assert.deepEqual(config.modules.map((m) => m._id), [base._id, ...(own ? [extra._id] : [])], c.deviceId);
      assert.deepEqual(
        config.treatments.map((tr) => tr._id),
        [t1, ...(own ? [t2] : []), ...device.additionalTreatmentIds],
        c.deviceId,
      );
      configs.set(c.deviceId, config.firmware?._id ?? null);
    }
  };
  const configs = new Map<string, string | null>();

  await t.step("a pin (the device's own row: the shared key names it)", async () => {
    const [changed, other] = await fleet("pin", 2);
    await api.patchDevice({ deviceId: changed.deviceId, firmware: fw._id });
    await alternate(changed, other);
    assert.equal(configs.get(changed.deviceId), fw._id);
    assert.equal(configs.get(other.deviceId), null);
  });

  await t.step("a module enabled on one device (device_modules)", async () => {
    const [changed, other] = await fleet("module", 2);
    await api.patchDevice({ deviceId: changed.deviceId, moduleIds: [extra._id] });
    await alternate(changed, other);
  });

  await t.step("a treatment of one device's own (device_treatments)", async () => {
    const [changed, other] = await fleet("treatment", 2);
    await api.patchDevice({ deviceId: changed.deviceId, additionalTreatmentIds: [t3] });
    await alternate(changed, other);
  });

  await t.step("rollout membership: devices of one configuration inside and outside a stage", async () => {
    const devices = await fleet("member", 12);
    const r = await api.createRollout({ name: "half", firmwareId: fw._id, productTypeId: pt._id, stages: [50, 100] });
    await api.rolloutAction(r._id, "start");
    try {
      // What each is offered, as A resolves it (the start made every device of the type a member: quiet polls).
      const joined = new Map<string, string | null>();
      for (const c of devices) joined.set(c.deviceId, (await api.firmwareInEffect(c.deviceId)).firmwareId);
      const inside = devices.filter((c) => joined.get(c.deviceId) === fw._id);
      const outside = devices.filter((c) => joined.get(c.deviceId) === null);
      assert.ok(inside.length > 0 && outside.length > 0, `${inside.length} of 12 inside the 50 % stage`);
      for (const [changed, other] of [[inside[0], outside[0]], [outside[1] ?? outside[0], inside[1] ?? inside[0]]]) {
        await alternate(changed, other);
        assert.equal(configs.get(changed.deviceId), joined.get(changed.deviceId), changed.deviceId);
        assert.equal(configs.get(other.deviceId), joined.get(other.deviceId), other.deviceId);
      }
    } finally {
      // Cancelled even when a check failed: the next step's devices are of the same type.
      await api.rolloutAction(r._id, "cancel");
    }
  });

  /** A device polling by DDI (its §6 client beside it), of the product type, polled twice with nothing to do. */
  const ddiDevice = async (id: string) => {
    const answer = await new DeviceClient(id, { baseUrl: b.url, apiKey: DEVICE_API_KEY }).enroll({
      versionInfo: VERSION,
    });
    assert.ok("token" in answer);
    await api.patchDevice({ deviceId: id, productTypeId: pt._id });
    const ddi = new DdiDevice(b.url, id, `TargetToken ${answer.token}`);
    for (let i = 0; i < 2; i++) assert.equal(linkedAction(await ddi.poll(), "deploymentBase"), null);
    return Object.assign(ddi, { client: new DeviceClient(id, { baseUrl: b.url, apiKey: answer.token }) });
  };

  await t.step("a DDI action of one device (being withdrawn) beside one without", async () => {
    const [changed, other] = [await ddiDevice("ddi-act-0"), await ddiDevice("ddi-act-1")];
    await api.patchDevice({ deviceId: changed.controllerId, firmware: fw._id });
    const opened = linkedAction(await changed.poll(), "deploymentBase");
    assert.ok(opened !== null);
    await api.patchDevice({ deviceId: changed.controllerId, firmware: null });
    // Now both are unpinned, of one product type, without a report: only the withdrawn action tells them apart.
    assert.equal(linkedAction(await changed.poll(), "cancelAction"), opened);
    for (const [ddi, cancel] of [[changed, opened], [other, null], [other, null], [changed, opened]] as const) {
      const polled = await ddi.poll();
      assert.equal(polled.status, 200);
      assert.equal(linkedAction(polled, "cancelAction"), cancel, ddi.controllerId);
      assert.equal(linkedAction(polled, "deploymentBase"), null, ddi.controllerId);
    }
  });

  await t.step("DDI: a device that reported the firmware final beside one that did not", async () => {
    const [reported, other] = [await ddiDevice("ddi-final-0"), await ddiDevice("ddi-final-1")];
    // Pinned, it reports the firmware installed by §6 (no DDI action opened), then unpinned.
    await api.patchDevice({ deviceId: reported.controllerId, firmware: fw._id });
    await reported.client.status({ firmwareId: fw._id, state: "installed" });
    await api.patchDevice({ deviceId: reported.controllerId, firmware: null });
    const managed = (await api.listDeviceTypes()).find((d) => d.name.startsWith("jeecee_baby_"))!;
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });
    try {
      // The default applies to both: the one that reported it has nothing to do, the other gets its action.
      const first = linkedAction(await reported.poll(), "deploymentBase");
      const opened = linkedAction(await other.poll(), "deploymentBase");
      assert.equal(first, null, reported.controllerId);
      assert.ok(opened !== null, `${other.controllerId} is offered the default it never reported`);
      assert.equal(linkedAction(await other.poll(), "deploymentBase"), opened);
      assert.equal(linkedAction(await reported.poll(), "deploymentBase"), null, reported.controllerId);
    } finally {
      await api.patchDeviceType({ _id: managed._id, defaultFirmware: null });
    }
  });
}
