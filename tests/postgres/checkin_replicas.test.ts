/**
 * Polls that change nothing cost no write (docs/DECISIONS.md), on two replicas over one PostgreSQL database: a change
 * made through replica A (a pin, a rollout's start, a credential reset, a deletion) is what the next check-in or DDI
 * poll through replica B answers, at once; B's coalesced last-seen times reach the database within the window, and a
 * clean shutdown of B writes what it still held.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { DdiDevice, linkedAction } from "../../testing/ddi.ts";
import { bytesSource } from "../../testing/files.ts";
import { sharedAnswersCase } from "../device/shared_answers_case.ts";
import { draftWithSplitFirstStage } from "../helpers/split_stage.ts";
import { testDatabaseUrl } from "../../testing/postgres.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";

const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0"] };

Deno.test("replicas: check-ins through B see A's pins, rollouts, resets and deletions at once; last-seen written within the window and at shutdown", async () => {
  const url = await testDatabaseUrl();
  const env = { DATABASE_URL: url, DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto", LOG_LEVEL: "quiet" };
  await using a = await startServer({ env });
  await using b = await startServer({ env });
  const api = await a.login();

  const enrolled = async (id: string) => {
    const answer = await new DeviceClient(id, { baseUrl: b.url, apiKey: DEVICE_API_KEY }).enroll({
      versionInfo: VERSION,
    });
    assert.ok("token" in answer);
    return new DeviceClient(id, { baseUrl: b.url, apiKey: answer.token });
  };
  const d1 = await enrolled("dev-1");
  const d2 = await enrolled("dev-2");
  await d1.checkin({ versionInfo: VERSION });
  await d2.checkin({ versionInfo: VERSION });
  const first = (await api.getDevice("dev-1")).lastLoggedIn;
  assert.ok(first, "a first check-in is written at once");

  // A check-in that changes nothing: its last-seen time reaches the database (read through A) within the window.
  await new Promise((r) => setTimeout(r, 5));
  const sent = Date.now();
  await d1.checkin({ versionInfo: VERSION });
  let seen = (await api.getDevice("dev-1")).lastLoggedIn;
  while (seen === first && Date.now() - sent < 15_000) {
    await new Promise((r) => setTimeout(r, 50));
    seen = (await api.getDevice("dev-1")).lastLoggedIn;
  }
  console.log(`lastLoggedIn from replica B read on replica A ${Date.now() - sent} ms after the check-in was sent`);
  assert.ok(seen! > first!);

  // A pin through A: B's next check-in names the pinned firmware.
  const pinned = await api.uploadFirmware(bytesSource("pinned.xz", xzBytes("pinned firmware ".repeat(300))));
  await api.patchDevice({ deviceId: "dev-1", firmware: pinned._id });
  assert.equal((await d1.checkin({ versionInfo: VERSION })).firmware?._id, pinned._id);
  await api.patchDevice({ deviceId: "dev-1", firmware: null });
  assert.equal((await d1.checkin({ versionInfo: VERSION })).firmware, null);

  // A rollout started through A: B's next check-in of a device in its stage names the rollout's firmware.
  const offered = await api.uploadFirmware(bytesSource("offered.xz", xzBytes("offered firmware ".repeat(300))));
  const r = await api.createRollout({ name: "all", firmwareId: offered._id, productTypeId: null, stages: [100] });
  await api.rolloutAction(r._id, "start");
  assert.equal((await d2.checkin({ versionInfo: VERSION })).firmware?._id, offered._id);
  assert.equal((await d2.config()).firmware?._id, offered._id);
  await api.rolloutAction(r._id, "cancel");
  assert.equal((await d2.checkin({ versionInfo: VERSION })).firmware, null);

  // A credential reset through A: the old token is refused by B at once.
  await api.resetDeviceCredentials("dev-1");
  await assert.rejects(d1.checkin({ versionInfo: VERSION }), (e: { status: number }) => e.status === 401);

  // A deletion through A: B refuses the deleted device's token at once, and creates nothing.
  await api.deleteDevice("dev-2");
  await assert.rejects(d2.checkin({ versionInfo: VERSION }), (e: { status: number }) => e.status === 401);
  await assert.rejects(api.getDevice("dev-2"), (e: { status: number }) => e.status === 404);

  // hawkBit DDI polls through B alike: a pin through A opens an action at B's next poll, unpinning withdraws it, a
  // credential reset refuses the token.
  const enrolment = await new DeviceClient("ddi-1", { baseUrl: b.url, apiKey: DEVICE_API_KEY })
    .enroll({ versionInfo: VERSION });
  assert.ok("token" in enrolment);
  const ddi = new DdiDevice(b.url, "ddi-1", `TargetToken ${enrolment.token}`);
  for (let i = 0; i < 2; i++) {
    const polled = await ddi.poll();
    assert.equal(polled.status, 200);
    assert.equal(linkedAction(polled, "deploymentBase"), null);
  }
  await api.patchDevice({ deviceId: "ddi-1", firmware: pinned._id });
  const opened = linkedAction(await ddi.poll(), "deploymentBase");
  assert.ok(opened !== null, "the pin made through A is B's next poll's deployment");
  assert.equal(linkedAction(await ddi.poll(), "deploymentBase"), opened);
  await api.patchDevice({ deviceId: "ddi-1", firmware: null });
  assert.equal(linkedAction(await ddi.poll(), "cancelAction"), opened);
  await api.resetDeviceCredentials("ddi-1");
  assert.equal((await ddi.poll()).status, 401);

  // A clean shutdown of B writes the last-seen times it still holds.
  const d3 = await enrolled("dev-3");
  await d3.checkin({ versionInfo: VERSION });
  const before = (await api.getDevice("dev-3")).lastLoggedIn;
  await new Promise((r) => setTimeout(r, 5));
  await d3.checkin({ versionInfo: VERSION });
  assert.equal(await b.stop("SIGTERM"), 0);
  assert.ok((await api.getDevice("dev-3")).lastLoggedIn! > before!, "B's last check-in is written at shutdown");
});

Deno.test("replicas: the answers B holds in memory follow what A changes beyond the device's row (default firmware, a stage, DDI)", async () => {
  const url = await testDatabaseUrl();
  const env = { DATABASE_URL: url, LOG_LEVEL: "quiet" };
  await using a = await startServer({ env });
  await using b = await startServer({ env });
  const api = await a.login();
  const ids = Array.from({ length: 12 }, (_, i) => `mem-${i}`);
  const devices = ids.map((id) => new DeviceClient(id, { baseUrl: b.url, apiKey: DEVICE_API_KEY }));
  // Polled twice: B holds each quiet answer.
  const checkins = () => Promise.all(devices.map((d) => d.checkin({ versionInfo: VERSION })));
  for (let i = 0; i < 2; i++) assert.ok((await checkins()).every((c) => c.firmware === null));
  const ddi = new DdiDevice(b.url, "mem-ddi", `GatewayToken ${DEVICE_API_KEY}`);
  for (let i = 0; i < 2; i++) assert.equal(linkedAction(await ddi.poll(), "deploymentBase"), null);

  // The device type's default firmware (device_types), set and unset through A.
  const fw = await api.uploadFirmware(bytesSource("default.xz", xzBytes("default firmware ".repeat(300))));
  const [type] = await api.listDeviceTypes();
  await api.patchDeviceType({ _id: type._id, defaultFirmware: fw._id });
  assert.ok((await checkins()).every((c) => c.firmware?._id === fw._id), "B names the new default at once");
  const opened = linkedAction(await ddi.poll(), "deploymentBase");
  assert.ok(opened !== null, "B's next DDI poll opens the default's action");
  await api.patchDeviceType({ _id: type._id, defaultFirmware: null });
  assert.ok((await checkins()).every((c) => c.firmware === null), "and drops it at once");
  assert.equal(linkedAction(await ddi.poll(), "cancelAction"), opened);

  // A stage moved through A (rollouts' stage): the devices outside the first stage are offered the firmware at once.
  const offered = await api.uploadFirmware(bytesSource("staged.xz", xzBytes("staged firmware ".repeat(300))));
  const create = () =>
    api.createRollout({ name: "staged", firmwareId: offered._id, productTypeId: null, stages: [50, 100] });
  // Some but not all of the 12 in its first stage.
  const r = await draftWithSplitFirstStage(ids, 50, create, (id) => api.rolloutAction(id, "cancel"));
  await api.rolloutAction(r._id, "start");
  await checkins();
  const first = await checkins();
  const waiting = ids.filter((_, i) => first[i].firmware === null);
  assert.ok(
    waiting.length > 0 && waiting.length < ids.length,
    `${waiting.length} of 12 devices outside the 50 % stage`,
  );
  await api.rolloutAction(r._id, "advance");
  assert.ok((await checkins()).every((c) => c.firmware?._id === offered._id), "every device at the 100 % stage");
});

Deno.test("replicas: devices of one configuration share B's answer, and one changed alone gets its own (pin, module, treatment, rollout membership, DDI action)", async (t) => {
  const url = await testDatabaseUrl();
  const env = { DATABASE_URL: url, DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto", LOG_LEVEL: "quiet" };
  await using a = await startServer({ env });
  await using b = await startServer({ env });
  await sharedAnswersCase(t, await a.login(), b.url);
});
