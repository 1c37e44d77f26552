/**
 * hawkBit DDI (docs/REQUIREMENTS.md §18) against the real server, DEVICE_AUTH=shared (GatewayToken): a poll registers
 * the device, the deployment with its hashes and absolute links, the artifact's exact bytes (HEAD, GET, Range),
 * feedback through installed, configData as attributes, long details, the tenant's case, and what is refused.
 * Runs on SQLite and, in the PostgreSQL pass, on PostgreSQL.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { bytesSource, fileSource, makeXzFile } from "../../testing/files.ts";
import { opensslKey, opensslSign } from "../../testing/release_keys.ts";
import { DdiDevice, linkedAction } from "../../testing/ddi.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";

const hex = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");

Deno.test("DDI, shared mode: poll, deployment, artifact, feedback through installed, configData", async () => {
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet", DDI_POLL_SECONDS: "90" } });
  const api = await srv.login();
  const dev = new DdiDevice(srv.url, "ddi-1", `GatewayToken ${DEVICE_API_KEY}`);

  // No firmware applies yet: the poll registers the device and asks for its attributes.
  let poll = await dev.poll();
  assert.equal(poll.status, 200);
  assert.deepEqual(poll.json, {
    config: { polling: { sleep: "00:01:30" } },
    _links: { configData: { href: `${dev.base}/configData` } },
  });
  const registered = await api.getDevice("ddi-1");
  assert.ok(registered.lastLoggedIn);
  assert.equal(registered.attributes, null);

  const bytes = xzBytes("ddi firmware one ".repeat(500));
  const fw = await api.uploadFirmware(bytesSource("fw-ddi-1.0.xz", bytes));
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });

  poll = await dev.poll();
  const actionId = linkedAction(poll, "deploymentBase")!;
  assert.ok(Number.isInteger(actionId) && actionId >= 1 && actionId <= 2 ** 31 - 1, String(actionId));
  assert.equal(poll.json._links.deploymentBase.href, `${dev.base}/deploymentBase/${actionId}`);
  // Stable while it stays open.
  assert.equal(linkedAction(await dev.poll(), "deploymentBase"), actionId);

  const deployment = await dev.call("GET", `/deploymentBase/${actionId}`);
  assert.equal(deployment.status, 200);
  const href = `${dev.base}/softwaremodules/${actionId}/artifacts/fw-ddi-1.0.xz`;
  assert.deepEqual(deployment.json, {
    id: String(actionId),
    deployment: {
      download: "forced",
      update: "forced",
      chunks: [{
        part: "os",
        version: "fw-ddi-1.0",
        name: "fw-ddi-1.0.xz",
        artifacts: [{
          filename: "fw-ddi-1.0.xz",
          size: bytes.length,
          hashes: { sha1: hex("sha1", bytes), md5: hex("md5", bytes), sha256: hex("sha256", bytes) },
          _links: { download: { href }, "download-http": { href } },
        }],
      }],
    },
  });

  const head = await dev.call("HEAD", href);
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), String(bytes.length));
  const got = await dev.call("GET", href);
  assert.equal(got.status, 200);
  assert.deepEqual(got.bytes, bytes);
  const part = await dev.call("GET", href, undefined, { range: "bytes=10-19" });
  assert.equal(part.status, 206);
  assert.deepEqual(part.bytes, bytes.slice(10, 20));
  assert.equal((await dev.call("GET", `${dev.base}/softwaremodules/${actionId}/artifacts/other.xz`)).status, 404);

  // Feedback as SWUpdate sends it: always 200, never 204.
  let fb = await dev.feedback(actionId, "proceeding", "none", ["Downloading"]);
  assert.equal(fb.status, 200);
  assert.equal((await api.getDevice("ddi-1")).update?.state, "installing");
  fb = await dev.feedback(actionId, "download", "none");
  assert.equal(fb.status, 200);
  assert.equal((await api.getDevice("ddi-1")).update?.state, "downloading");
  // Long details are kept, joined and cut to 1000 characters; unknown members are ignored.
  const long = await dev.call("POST", `/deploymentBase/${actionId}/feedback`, {
    ...DdiDevice.feedbackBody(actionId, "proceeding", "none", ["x".repeat(3000), "y"]),
    unknown: { member: true },
  });
  assert.equal(long.status, 200);
  // The text rule (§17) holds for feedback and attributes: a NUL or a lone surrogate is 400 and changes nothing.
  const nul = await dev.call(
    "POST",
    `/deploymentBase/${actionId}/feedback`,
    DdiDevice.feedbackBody(actionId, "closed", "failure", ["a\u0000b"]),
  );
  assert.deepEqual([nul.status, nul.json?.error], [400, "invalid_request"]);
  assert.equal((await dev.configData({ board: "\ud800" })).status, 400);
  const installing = (await api.getDevice("ddi-1")).update!;
  assert.equal(installing.state, "installing");
  assert.equal(installing.message, "x".repeat(1000));
  // Success after the reboot closes the action: it is linked no more.
  fb = await dev.feedback(actionId, "closed", "success", ["Update applied"]);
  assert.equal(fb.status, 200);
  assert.equal(fb.bytes.length, 0);
  const installed = (await api.getDevice("ddi-1")).update!;
  assert.deepEqual([installed.state, installed.firmwareId], ["installed", fw._id]);
  poll = await dev.poll();
  assert.equal(poll.json._links.deploymentBase, undefined);

  // configData: the attributes are stored, audited as the device's, and no longer asked for.
  assert.equal((await dev.configData({ board: "rpi4", "hw rev": "1.0" })).status, 200);
  assert.deepEqual((await api.getDevice("ddi-1")).attributes, { board: "rpi4", "hw rev": "1.0" });
  assert.equal((await dev.poll()).json._links.configData, undefined);
  const audit = await api.listAudit({ action: "device.attributes" });
  assert.equal(audit.data[0]?.actor.id, "ddi-1");
  assert.deepEqual(audit.data[0]?.details, {
    before: { board: null, "hw rev": null },
    changes: { board: "rpi4", "hw rev": "1.0" },
  });
  const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, "v"]));
  assert.equal((await dev.configData(tooMany)).status, 400);
  assert.equal((await dev.configData({ k: "v".repeat(1025) })).status, 400);
  assert.deepEqual((await api.getDevice("ddi-1")).attributes, { board: "rpi4", "hw rev": "1.0" });
});

Deno.test("DDI, shared mode: tenant case, credentials, throttling, and paths that name nothing", async () => {
  await using srv = await startServer({
    env: { LOG_LEVEL: "quiet", DDI_TENANT: "Clinic", DEVICE_AUTH_MAX_FAILURES: "3" },
  });
  const key = `GatewayToken ${DEVICE_API_KEY}`;
  assert.equal((await new DdiDevice(srv.url, "t-1", key, "clinic").poll()).status, 200);
  assert.equal((await new DdiDevice(srv.url, "t-1", key, "CLINIC").poll()).status, 200);
  assert.equal((await new DdiDevice(srv.url, "t-1", key, "DEFAULT").poll()).status, 404);
  const refused = [
    null,
    `Bearer ${DEVICE_API_KEY}`,
    `TargetToken ${DEVICE_API_KEY}`,
    "GatewayToken wrong-key-0123456789",
  ];
  for (const auth of refused.slice(0, 3)) {
    const res = await new DdiDevice(srv.url, "t-2", auth, "Clinic").poll();
    assert.deepEqual([res.status, res.json?.error], [401, "unauthorized"], String(auth));
  }
  // The fourth failure from this address is over the limit: 429, while the right key still goes through.
  const throttled = await new DdiDevice(srv.url, "t-2", refused[3], "Clinic").poll();
  assert.equal(throttled.status, 429);
  assert.ok(Number(throttled.headers.get("retry-after")) > 0);
  assert.equal((await new DdiDevice(srv.url, "t-3", key, "Clinic").poll()).status, 200);
  // A NUL or a lone surrogate names nothing; an id that cannot be a device id is refused.
  for (const path of ["/Clinic/controller/v1/a%00b", "/Clinic/controller/v1/a%ED%A0%80b"]) {
    const res = await fetch(`${srv.url}${path}`, { headers: { authorization: key } });
    await res.body?.cancel();
    assert.equal(res.status, 404, path);
  }
  const bad = await fetch(`${srv.url}/Clinic/controller/v1/a%20b`, { headers: { authorization: key } });
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  const api = await srv.login();
  await assert.rejects(api.getDevice("t-2"));
});

Deno.test("DDI: a signed firmware's deploymentBase names its release key and carries the signature", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ddi-signed-" });
  await using srv = await startServer({ env: { LOG_LEVEL: "quiet" } });
  try {
    const api = await srv.login();
    const key = await opensslKey(dir, "ecdsa-p256");
    const releaseKey = await api.createReleaseKey("DDI pipeline key", key.publicPem);
    const path = await makeXzFile(dir, "fw-ddi-signed.xz");
    const signature = await opensslSign(key, path);
    const fw = await api.uploadFirmware(await fileSource(path), undefined, { fields: { signature } });
    const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });

    const dev = new DdiDevice(srv.url, "ddi-signed", `GatewayToken ${DEVICE_API_KEY}`);
    const actionId = linkedAction(await dev.poll(), "deploymentBase")!;
    const deployment = await dev.call("GET", `/deploymentBase/${actionId}`);
    assert.equal(deployment.status, 200);
    const [chunk] = deployment.json.deployment.chunks;
    assert.deepEqual(chunk.metadata, [
      { key: "signature.keyId", value: releaseKey._id },
      { key: "signature.keyName", value: "DDI pipeline key" },
      { key: "signature.algorithm", value: "ecdsa-p256" },
      { key: "signature.value", value: signature },
    ]);
    assert.equal(chunk.artifacts[0].hashes.sha256, fw.sha256);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
