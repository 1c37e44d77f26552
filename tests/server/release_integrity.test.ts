/**
 * Release integrity over HTTP (docs/REQUIREMENTS.md §20), with REQUIRE_SIGNED_FIRMWARE=1 and RELEASE_APPROVALS=1:
 * release keys (admins; readable by CI tokens), signatures made with openssl at test time (Ed25519 and ECDSA P-256)
 * verified against the digest the upload computed, every refusal storing nothing; two-person release: the uploader, a
 * token and a wrong password refused (throttled), every use of a pending firmware refused, the approval audited and
 * the chain verified by audit-verify.
 */
import assert from "node:assert/strict";
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { createHash } from "node:crypto";
import type { ApiClient } from "../../shared/client.ts";
import { DeviceClient } from "../../shared/client.ts";
import { routes } from "../../shared/routes/mod.ts";
import type { AuditList } from "../../shared/schemas/audit.ts";
import { APPROVAL_MEANING, type Firmware } from "../../shared/schemas/firmware.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { tick } from "../../testing/clock.ts";
import { type OpensslKey, opensslKey, opensslSign } from "../../testing/release_keys.ts";
import { DEVICE_API_KEY, listFiles, startServer, type TestServer } from "../../testing/server.ts";
import { multipart } from "../helpers/hostile.ts";
import { ApiError } from "../../shared/client.ts";
import { auditVerify } from "../helpers/audit_verify.ts";

const CODES: Record<number, string> = {
  400: "invalid_request",
  401: "invalid_password",
  403: "forbidden",
  409: "conflict",
  422: "invalid_signature",
  429: "too_many_requests",
};

/** Awaits p, which must fail with `status`, its code, and a msg matching `msg` if given. */
async function rejects(p: Promise<unknown>, status: number, msg?: RegExp): Promise<ApiError> {
  const err = await p.then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `expected ApiError, got ${err}`);
  assert.equal(err.status, status, err.message);
  assert.equal(err.code, CODES[status]);
  if (msg) assert.match(err.msg, msg);
  return err;
}

/** What a refused upload must leave as it was: the list, the stored files, an empty tmp dir. */
async function unchanged(srv: TestServer, api: ApiClient, before: Firmware[]) {
  assert.deepEqual(await api.listFirmwares(), before);
  assert.deepEqual((await srv.storedFirmwares()).length, before.length);
  assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
}

Deno.test("release integrity: signed uploads, release keys, two-person release", async (t) => {
  await using srv = await startServer({ env: { REQUIRE_SIGNED_FIRMWARE: "1", RELEASE_APPROVALS: "1" } });
  const admin = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "release-" });
  for (
    const [email, role] of [["up@example.com", "operator"], ["second@example.com", "operator"], [
      "guess@example.com",
      "operator",
    ], ["view@example.com", "viewer"]] as const
  ) {
    await admin.createOperator({ email, role, password: `${email}-pw` });
  }
  const uploader = await srv.login("up@example.com", "up@example.com-pw");
  const second = await srv.login("second@example.com", "second@example.com-pw");
  const viewer = await srv.login("view@example.com", "view@example.com-pw");

  const [ed, p256, stranger, retired] = await Promise.all([
    opensslKey(dir, "ed25519"),
    opensslKey(dir, "ecdsa-p256"),
    opensslKey(dir, "ed25519"),
    opensslKey(dir, "ecdsa-p256"),
  ]);
  const keyIds: Record<string, string> = {};
  const upload = async (api: ApiClient, path: string, fields: Record<string, string> = {}) =>
    await api.uploadFirmware(await fileSource(path), undefined, { fields });
  const signed = async (key: OpensslKey, path: string) => ({ signature: await opensslSign(key, path) });

  await t.step("release keys: admins register Ed25519 and P-256 PEM keys; others read them", async () => {
    const made = await admin.createReleaseKey("CI ed25519", ed.publicPem);
    assert.equal(made.algorithm, "ed25519");
    assert.equal(made.revokedAt, null);
    assert.equal(made.createdBy, "admin@example.com");
    keyIds.ed = made._id;
    // The list is in order of creation, ties by id (random): a later millisecond for each key.
    await tick();
    keyIds.p256 = (await admin.createReleaseKey("CI p256", p256.publicPem))._id;
    await tick();
    keyIds.retired = (await admin.createReleaseKey("Retired", retired.publicPem))._id;
    await rejects(uploader.createReleaseKey("Mine", stranger.publicPem), 403, /admin role/);
    await rejects(admin.createReleaseKey("ci ED25519", stranger.publicPem), 409, /named/);
    await rejects(admin.createReleaseKey("Same key", ed.publicPem), 409, /registered already as CI ed25519/);
    await rejects(
      admin.createReleaseKey("Private", await Deno.readTextFile(ed.privatePath)),
      400,
      /publicKey: must be a PEM public key/,
    );
    const p384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" }).publicKey.export({
      type: "spki",
      format: "pem",
    });
    await rejects(admin.createReleaseKey("P-384", p384.toString()), 400, /Ed25519 or ECDSA P-256.*secp384r1/);
    await rejects(admin.createReleaseKey("Junk", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"), 400);
    // A build pipeline reads the key with a CI token (read scope); a viewer lists them.
    const { token } = await admin.createApiToken({ name: "device build", scopes: ["read"] });
    const key = await srv.client(token).getReleaseKey(keyIds.ed);
    assert.equal(key.publicKey.trim(), ed.publicPem.trim());
    assert.deepEqual((await viewer.listReleaseKeys()).map((k) => k.name), ["CI ed25519", "CI p256", "Retired"]);
    await rejects(srv.client(token).createReleaseKey("Token's", stranger.publicPem), 403, /No API token/);
  });

  const fwPath = await makeXzFile(dir, "fw-1.0.0.xz", "release one ".repeat(2000));
  let pending: Firmware;

  await t.step("an Ed25519 signature (keyId given) verifies; the firmware names its key and is pending", async () => {
    pending = await upload(uploader, fwPath, { ...await signed(ed, fwPath), keyId: keyIds.ed });
    assert.deepEqual({ ...pending.signature, value: "" }, {
      keyId: keyIds.ed,
      keyName: "CI ed25519",
      algorithm: "ed25519",
      value: "",
    });
    assert.deepEqual(pending.approval, { state: "pending", by: null, at: null, meaning: null });
    assert.equal(pending.uploadedBy, "up@example.com");
  });

  let p256Firmware: Firmware;
  await t.step(
    "an ECDSA P-256 signature (DER, no keyId: the registered keys are tried) verifies; raw r||s too",
    async () => {
      const path = await makeXzFile(dir, "fw-1.0.1.xz", "release two ".repeat(2000));
      p256Firmware = await upload(uploader, path, await signed(p256, path));
      assert.equal(p256Firmware.signature?.keyName, "CI p256");
      assert.equal(p256Firmware.signature?.algorithm, "ecdsa-p256");
      const rawPath = await makeXzFile(dir, "fw-1.0.2.xz", "release three");
      const digest = createHash("sha256").update(await Deno.readFile(rawPath)).digest();
      const raw = sign("sha256", digest, {
        key: createPrivateKey(await Deno.readTextFile(p256.privatePath)),
        dsaEncoding: "ieee-p1363",
      });
      const rawFw = await upload(second, rawPath, { signature: raw.toString("base64"), keyId: keyIds.p256 });
      assert.equal(rawFw.signature?.keyId, keyIds.p256);
    },
  );

  await t.step("422 invalid_signature and nothing stored: other bytes, another key, unsigned, malformed", async () => {
    const before = await admin.listFirmwares();
    const other = await makeXzFile(dir, "fw-2.0.0.xz", "other bytes");
    const overOther = await signed(ed, fwPath); // signs fw-1.0.0's digest
    await rejects(upload(uploader, other, { ...overOther, keyId: keyIds.ed }), 422, /not release key CI ed25519's/);
    await rejects(upload(uploader, other, overOther), 422, /No registered release key made the signature/);
    await rejects(upload(uploader, other, await signed(stranger, other)), 422, /No registered release key/);
    await rejects(upload(uploader, other), 422, /REQUIRE_SIGNED_FIRMWARE=1/);
    await rejects(upload(uploader, other, { signature: "not base64!" }), 422, /not base64/);
    await rejects(upload(uploader, other, { ...await signed(ed, other), keyId: "no-such-key" }), 422, /no release key/);
    await rejects(upload(uploader, other, { keyId: keyIds.ed }), 422, /without a signature/);
    // The signature must come before the file (under the requirement the file is refused as unsigned at once).
    const bytes = await Deno.readFile(other);
    const body = multipart("b", [
      { name: "file", filename: "fw-2.0.0.xz", data: bytes },
      { name: "signature", data: (await signed(ed, other)).signature },
    ]);
    const res = await srv.fetch("/api/v1/device_firmwares", {
      method: "POST",
      token: uploader.token,
      headers: { "content-type": "multipart/form-data; boundary=b" },
      body,
    });
    assert.equal(res.status, 422);
    assert.match((await res.json()).msg, /REQUIRE_SIGNED_FIRMWARE=1.*before the file/);
    await unchanged(srv, admin, before);
  });

  await t.step("a revoked key verifies nothing new; it stays listed, and what it signed keeps naming it", async () => {
    const path = await makeXzFile(dir, "fw-3.0.0.xz", "retired");
    const early = await upload(uploader, await makeXzFile(dir, "fw-2.9.0.xz", "early"), {
      signature: await opensslSign(retired, `${dir}/fw-2.9.0.xz`),
    });
    assert.equal(early.signature?.keyName, "Retired");
    const res = await srv.fetch(`/api/v1/release_keys/${keyIds.retired}`, { method: "DELETE", token: admin.token });
    assert.equal(res.status, 204);
    await rejects(admin.revokeReleaseKey(keyIds.retired), 409, /revoked already/);
    const before = await admin.listFirmwares();
    const sig = await signed(retired, path);
    await rejects(upload(uploader, path, { ...sig, keyId: keyIds.retired }), 422, /Retired was revoked/);
    await rejects(upload(uploader, path, sig), 422, /No registered release key/);
    await unchanged(srv, admin, before);
    assert.ok((await admin.getReleaseKey(keyIds.retired)).revokedAt);
    assert.equal((await admin.listFirmwares()).find((f) => f._id === early._id)?.signature?.keyName, "Retired");
    await rejects(admin.createReleaseKey("Retired again", retired.publicPem), 409, /never reused/);
  });

  await t.step(
    "a pending firmware is refused (409, naming the approval) as a default, a pin, a bulk change, a rollout",
    async () => {
      await new DeviceClient("rel-1", { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
        versionInfo: { app: "1", os: "linux", channels: [] },
      });
      const [dt] = await admin.listDeviceTypes();
      const awaiting = /fw-1\.0\.0\.xz is awaiting approval \(two-person release\)/;
      await rejects(admin.patchDeviceType({ _id: dt._id, defaultFirmware: pending._id }), 409, awaiting);
      await rejects(admin.patchDevice({ deviceId: "rel-1", firmware: pending._id }), 409, awaiting);
      await rejects(
        admin.bulkDevices({ deviceIds: ["rel-1"], filter: null, set: { firmware: pending._id } }),
        409,
        awaiting,
      );
      await rejects(
        admin.call(routes.createRollout, { body: { name: "early", firmwareId: pending._id, productTypeId: null } }),
        409,
        awaiting,
      );
      assert.equal((await admin.getDevice("rel-1")).firmware, null);
      assert.equal((await admin.listDeviceTypes())[0].defaultFirmware, null);
      assert.deepEqual(await admin.call(routes.listRollouts, {}), []);
    },
  );

  await t.step("the uploader, an API token and a viewer cannot approve", async () => {
    await rejects(uploader.approveFirmware(pending._id, "up@example.com-pw"), 403, /You uploaded this firmware/);
    const { token } = await second.createApiToken({ name: "ci", scopes: ["firmware:write"] });
    await rejects(srv.client(token).approveFirmware(pending._id, "second@example.com-pw"), 403, /No API token/);
    await rejects(viewer.approveFirmware(pending._id, "view@example.com-pw"), 403, /operator role/);
    assert.equal((await admin.listFirmwares()).find((f) => f._id === pending._id)?.approval.state, "pending");
  });

  await t.step("a wrong password is 401 invalid_password (the session stays), throttled like sign-in", async () => {
    const guess = await srv.login("guess@example.com", "guess@example.com-pw");
    for (let i = 0; i < 5; i++) {
      await rejects(guess.approveFirmware(p256Firmware._id, `wrong-${i}`), 401, /password is incorrect/);
    }
    const throttled = await rejects(guess.approveFirmware(p256Firmware._id, "guess@example.com-pw"), 429);
    assert.match(throttled.msg, /Too many wrong passwords at approvals; try again in/);
    assert.equal((await guess.listFirmwares()).length > 0, true); // still signed in
    assert.equal((await admin.listFirmwares()).find((f) => f._id === p256Firmware._id)?.approval.state, "pending");
  });

  await t.step("a second operator approves with password and meaning; then the firmware may be released", async () => {
    await rejects(second.approveFirmware(pending._id, "wrong-password"), 401);
    const approved = await second.approveFirmware(pending._id, "second@example.com-pw");
    assert.equal(approved.approval.state, "approved");
    assert.equal(approved.approval.by, "second@example.com");
    assert.equal(approved.approval.meaning, APPROVAL_MEANING);
    await rejects(second.approveFirmware(pending._id, "second@example.com-pw"), 409, /approved already/);
    const [dt] = await admin.listDeviceTypes();
    assert.equal(
      (await admin.patchDeviceType({ _id: dt._id, defaultFirmware: pending._id })).defaultFirmware,
      pending._id,
    );
    const config = await new DeviceClient("rel-1", { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).config();
    assert.equal(config.firmware?._id, pending._id);
    assert.deepEqual(config.firmware?.signature, pending.signature);
  });

  await t.step("approvals are audit entries with approver, time and meaning; audit-verify passes", async () => {
    const res = await srv.fetch(`/api/v1/audit?targetId=${pending._id}&rowsPerPage=100`, { token: admin.token });
    const list = await res.json() as AuditList;
    const approval = list.data.find((e) => e.action === "firmware.approve")!;
    assert.equal(approval.actor.name, "second@example.com");
    assert.equal(approval.details.meaning, APPROVAL_MEANING);
    assert.equal(approval.details.approvedBy, "second@example.com");
    assert.equal(approval.details.sha256, pending.sha256);
    assert.ok(approval.at);
    const failed = list.data.filter((e) => e.action === "firmware.approve_failed");
    assert.equal(failed.length, 1);
    const upload = list.data.find((e) => e.action === "firmware.upload")!;
    assert.deepEqual(upload.details.signature, { keyId: keyIds.ed, keyName: "CI ed25519", algorithm: "ed25519" });
    assert.equal(upload.details.approval, "pending");
    const keys = await (await srv.fetch("/api/v1/audit?targetType=release_key&rowsPerPage=100", { token: admin.token }))
      .json() as AuditList;
    assert.deepEqual(keys.data.map((e) => e.action).sort(), [
      "release_key.create",
      "release_key.create",
      "release_key.create",
      "release_key.revoke",
    ]);
    const verified = await auditVerify(srv);
    assert.equal(verified.code, 0, verified.out);
  });
});

Deno.test("release integrity off (the defaults): a sent signature is still verified and named; nothing waits", async () => {
  await using srv = await startServer();
  const admin = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "release-off-" });
  const key = await opensslKey(dir, "ecdsa-p256");
  await admin.createReleaseKey("CI", key.publicPem);
  const plain = await admin.uploadFirmware(await fileSource(await makeXzFile(dir, "plain.xz")));
  assert.equal(plain.signature, null);
  assert.deepEqual(plain.approval, { state: "not_required", by: null, at: null, meaning: null });
  const path = await makeXzFile(dir, "signed.xz", "signed bytes");
  const signed = await admin.uploadFirmware(await fileSource(path), undefined, {
    fields: { signature: await opensslSign(key, path) },
  });
  assert.equal(signed.signature?.keyName, "CI");
  const before = await admin.listFirmwares();
  const other = await makeXzFile(dir, "other.xz", "other bytes");
  await rejects(
    admin.uploadFirmware(await fileSource(other), undefined, { fields: { signature: await opensslSign(key, path) } }),
    422,
    /not release key CI's|No registered release key/,
  );
  // A signature after the file is refused (it would not be read before the file is checked).
  const res = await srv.fetch("/api/v1/device_firmwares", {
    method: "POST",
    token: admin.token,
    headers: { "content-type": "multipart/form-data; boundary=b" },
    body: multipart("b", [
      { name: "file", filename: "late.xz", data: await Deno.readFile(other) },
      { name: "signature", data: await opensslSign(key, other) },
    ]),
  });
  assert.equal(res.status, 400);
  assert.match((await res.json()).msg, /signature: send this field before the file/);
  await unchanged(srv, admin, before);
  // Nothing to approve; the firmware is released at once.
  await rejects(admin.approveFirmware(signed._id, "irrelevant"), 409, /needs no approval/);
  const [dt] = await admin.listDeviceTypes();
  assert.equal((await admin.patchDeviceType({ _id: dt._id, defaultFirmware: signed._id })).defaultFirmware, signed._id);
});
