/**
 * hawkBit DDI's actions (docs/REQUIREMENTS.md §18) against the real server: DEVICE_AUTH=token's TargetToken bound to its
 * own controllerId (downloads included) and throttled; failure feedback counted in a rollout that pauses; a pin change
 * and a cancelled rollout withdrawing open actions through cancelAction, acknowledged by its feedback. Runs on SQLite
 * and, in the PostgreSQL pass, on PostgreSQL.
 */
import assert from "node:assert/strict";
import { bytesSource } from "../../testing/files.ts";
import { DdiDevice, linkedAction } from "../../testing/ddi.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";

async function enrol(srv: TestServer, id: string): Promise<string> {
  const res = await srv.fetch(`/api/v1/device/${id}/enroll`, {
    method: "POST",
    token: DEVICE_API_KEY,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ versionInfo: { app: null, os: null, channels: [] } }),
  });
  assert.equal(res.status, 201);
  return (await res.json()).token;
}

async function withDefault(srv: TestServer, name: string) {
  const api = await srv.login();
  const fw = await api.uploadFirmware(bytesSource(name, xzBytes(`${name} `.repeat(200))));
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });
  return { api, fw };
}

Deno.test("DDI, token mode: TargetToken on its own controllerId only, downloads included; throttled", async () => {
  await using srv = await startServer({
    env: { LOG_LEVEL: "quiet", DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto", DEVICE_AUTH_MAX_FAILURES: "8" },
  });
  const { api, fw } = await withDefault(srv, "fw-token-1.0.xz");
  const one = await enrol(srv, "tok-1");
  const two = await enrol(srv, "tok-2");
  const dev = new DdiDevice(srv.url, "tok-1", `TargetToken ${one}`);
  const poll = await dev.poll();
  assert.equal(poll.status, 200);
  const actionId = linkedAction(poll, "deploymentBase")!;
  assert.ok(actionId > 0);
  assert.ok((await api.getDevice("tok-1")).lastLoggedIn);

  const refused = [
    null,
    `TargetToken ${two}`,
    `GatewayToken ${DEVICE_API_KEY}`,
    `Bearer ${one}`,
    `targettoken x${one}`,
  ];
  for (const auth of refused) {
    const res = await new DdiDevice(srv.url, "tok-1", auth).poll();
    assert.equal(res.status, 401, String(auth));
  }
  // An unknown controllerId has no token: 401, and nothing is registered.
  assert.equal((await new DdiDevice(srv.url, "ghost-1", `TargetToken ${one}`).poll()).status, 401);
  await assert.rejects(api.getDevice("ghost-1"));

  const deployment = await dev.call("GET", `/deploymentBase/${actionId}`);
  const href: string = deployment.json.deployment.chunks[0].artifacts[0]._links.download.href;
  assert.equal((await new DdiDevice(srv.url, "tok-1", `TargetToken ${two}`).call("GET", href)).status, 401);
  const got = await dev.call("GET", href);
  assert.equal(got.status, 200);
  assert.equal(got.bytes.length, fw.size);
  // tok-2 cannot see tok-1's action under its own path either.
  const other = new DdiDevice(srv.url, "tok-2", `TargetToken ${two}`);
  assert.equal((await other.call("GET", `/deploymentBase/${actionId}`)).status, 404);
  assert.equal((await other.feedback(actionId, "closed", "success")).status, 404);

  assert.equal((await dev.feedback(actionId, "closed", "success")).status, 200);
  assert.equal((await api.getDevice("tok-1")).update?.state, "installed");

  // Wrong tokens for tok-2 from this address: past the limit its pair waits, the right token too; tok-1 goes on.
  for (let i = 0; i < 8; i++) {
    assert.equal((await new DdiDevice(srv.url, "tok-2", "TargetToken wrong").poll()).status, 401);
  }
  const waiting = await other.poll();
  assert.equal(waiting.status, 429);
  assert.match(waiting.json.msg, /tok-2/);
  assert.equal((await dev.poll()).status, 200);
});

Deno.test("DDI: failure feedback pauses a rollout; a pin change and a cancelled rollout withdraw actions", async () => {
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet" } });
  const { api, fw: v1 } = await withDefault(srv, "fw-act-1.0.xz");
  const devices = ["act-1", "act-2", "act-3"].map((id) => new DdiDevice(srv.url, id, `GatewayToken ${DEVICE_API_KEY}`));
  const v1Actions: number[] = [];
  for (const dev of devices) {
    const id = linkedAction(await dev.poll(), "deploymentBase")!;
    v1Actions.push(id);
    assert.equal((await dev.feedback(id, "closed", "success")).status, 200);
  }
  assert.equal(new Set(v1Actions).size, 3);

  const v2 = await api.uploadFirmware(bytesSource("fw-act-2.0.xz", xzBytes("two ".repeat(300))));
  let rollout = await api.createRollout({
    name: "act v2",
    firmwareId: v2._id,
    productTypeId: null,
    stages: [100],
    failureThreshold: 20,
  });
  rollout = await api.rolloutAction(rollout._id, "start");
  const v2Actions: number[] = [];
  for (const dev of devices) {
    const id = linkedAction(await dev.poll(), "deploymentBase");
    assert.ok(id !== null && !v1Actions.includes(id), `${dev.controllerId}: ${id}`);
    v2Actions.push(id);
    const deployment = await dev.call("GET", `/deploymentBase/${id}`);
    assert.equal(deployment.json.deployment.chunks[0].name, "fw-act-2.0.xz");
  }
  assert.equal((await devices[0].feedback(v2Actions[0], "download", "none")).status, 200);
  assert.equal((await api.getRollout(rollout._id)).counts.downloading, 1);

  // act-1's agent refuses the image: failed with its message, counted, and the rollout pauses itself.
  const failed = await devices[0].feedback(v2Actions[0], "closed", "failure", ["Image invalid", "sw-description"]);
  assert.equal(failed.status, 200);
  const update = (await api.getDevice("act-1")).update!;
  assert.deepEqual([update.state, update.firmwareId, update.message], [
    "failed",
    v2._id,
    "Image invalid; sw-description",
  ]);
  rollout = await api.getRollout(rollout._id);
  assert.equal(rollout.counts.failed, 1);
  assert.equal(rollout.state, "paused");
  assert.ok(rollout.pausedReason);
  const after = await devices[0].poll();
  assert.deepEqual(Object.keys(after.json._links).filter((l) => l !== "configData"), []);

  // act-2 is pinned to v1: its open v2 action is withdrawn, acknowledged, and linked no more.
  await api.patchDevice({ deviceId: "act-2", firmware: v1._id });
  let poll = await devices[1].poll();
  assert.equal(linkedAction(poll, "cancelAction"), v2Actions[1]);
  assert.equal(poll.json._links.deploymentBase, undefined);
  const cancel = await devices[1].call("GET", `/cancelAction/${v2Actions[1]}`);
  assert.deepEqual(cancel.json, { id: String(v2Actions[1]), cancelAction: { stopId: String(v2Actions[1]) } });
  assert.equal(linkedAction(await devices[1].poll(), "cancelAction"), v2Actions[1], "until it is acknowledged");
  const ack = await devices[1].cancelFeedback(v2Actions[1]);
  assert.deepEqual([ack.status, ack.bytes.length], [200, 0]);
  poll = await devices[1].poll();
  assert.equal(poll.json._links.cancelAction, undefined);
  assert.equal(poll.json._links.deploymentBase, undefined, "v1 is installed already");

  // The rollout is cancelled while act-3's action is open: withdrawn the same way.
  await api.rolloutAction(rollout._id, "cancel");
  poll = await devices[2].poll();
  assert.equal(linkedAction(poll, "cancelAction"), v2Actions[2]);
  assert.equal((await devices[2].cancelFeedback(v2Actions[2])).status, 200);
  assert.equal((await devices[2].poll()).json._links.cancelAction, undefined);
  // Late feedback on the withdrawn action is still answered 200 and changes no status.
  assert.equal((await devices[2].feedback(v2Actions[2], "closed", "success")).status, 200);
  assert.equal((await api.getDevice("act-3")).update?.firmwareId, v1._id);
});
