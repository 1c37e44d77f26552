import assert from "node:assert/strict";
import { ConflictError, ForbiddenError, NotFoundError, SigningKeyRevokedError } from "../../../server/db/errors.ts";
import { APPROVAL_MEANING } from "../../../shared/schemas/firmware.ts";
import { type ConformanceOptions, firmwareRow, storeTest } from "../fixtures.ts";

const key = (name: string, fingerprint: string) => ({
  name,
  algorithm: "ed25519" as const,
  publicKey: `-----BEGIN PUBLIC KEY-----\n${fingerprint}\n-----END PUBLIC KEY-----\n`,
  fingerprint,
  createdBy: "admin@example.com",
});

export function releaseKeyCases(engine: string, options: ConformanceOptions) {
  storeTest(
    engine,
    options,
    "release keys: unique names and keys, revoked for good; signed firmware names its key; approvals",
    async (stores, t) => {
      const { releaseKeys, firmwares, operators } = stores;
      const uploader = await operators.add("up@example.com", "h", "operator");
      const approver = await operators.add("second@example.com", "h", "operator");
      let ci = "";

      await t.step("a key is registered once, by name (ignoring case) and by fingerprint", async () => {
        ci = (await releaseKeys.create(key("CI key", "aa".repeat(32))))._id;
        await assert.rejects(releaseKeys.create(key(" ci KEY ", "bb".repeat(32))), ConflictError);
        await assert.rejects(releaseKeys.create(key("Other", "aa".repeat(32))), /registered already as CI key/);
        const listed = await releaseKeys.list();
        assert.deepEqual(listed.map((k) => [k.name, k.revokedAt]), [["CI key", null]]);
        assert.deepEqual((await releaseKeys.active()).map((k) => k._id), [ci]);
      });

      await t.step("a signed firmware names its key; a revoked key signs nothing new", async () => {
        const signed = {
          ...firmwareRow("signed.xz"),
          signature: { keyId: ci, keyName: "CI key", algorithm: "ed25519" as const, value: "c2ln" },
        };
        await firmwares.insert(signed, uploader._id);
        assert.deepEqual((await firmwares.get(signed._id))!.signature, signed.signature);
        const revoked = await releaseKeys.revoke(ci, "admin@example.com");
        assert.equal(revoked.revokedBy, "admin@example.com");
        assert.ok(revoked.revokedAt);
        await assert.rejects(releaseKeys.revoke(ci, "admin@example.com"), ConflictError);
        await assert.rejects(releaseKeys.revoke("nope", "admin@example.com"), NotFoundError);
        assert.deepEqual(await releaseKeys.active(), []);
        const late = { ...firmwareRow("late.xz"), signature: { ...signed.signature } };
        await assert.rejects(firmwares.insert(late, uploader._id), SigningKeyRevokedError);
        assert.equal(await firmwares.get(late._id), null);
        // The key stays (revoked), and so does what it signed before.
        assert.equal((await firmwares.get(signed._id))!.signature!.keyName, "CI key");
        await assert.rejects(releaseKeys.create(key("Again", "aa".repeat(32))), ConflictError);
      });

      await t.step("a pending firmware: not by its uploader, once, with its meaning in the trail", async () => {
        const pending = {
          ...firmwareRow("pending.xz"),
          approval: { state: "pending" as const, by: null, at: null, meaning: null },
          uploadedBy: uploader.email,
        };
        await firmwares.insert(pending, uploader._id);
        await assert.rejects(
          firmwares.approve(pending._id, { id: uploader._id, email: uploader.email }, APPROVAL_MEANING),
          ForbiddenError,
        );
        const approved = await firmwares.approve(
          pending._id,
          { id: approver._id, email: approver.email },
          APPROVAL_MEANING,
        );
        assert.deepEqual(
          { ...approved.approval, at: null },
          { state: "approved", by: "second@example.com", at: null, meaning: APPROVAL_MEANING },
        );
        await assert.rejects(
          firmwares.approve(pending._id, { id: approver._id, email: approver.email }, APPROVAL_MEANING),
          /approved already/,
        );
        const unrequired = firmwareRow("plain.xz");
        await firmwares.insert(unrequired);
        await assert.rejects(
          firmwares.approve(unrequired._id, { id: approver._id, email: approver.email }, APPROVAL_MEANING),
          /needs no approval/,
        );
        await assert.rejects(
          firmwares.approve("nope", { id: approver._id, email: approver.email }, APPROVAL_MEANING),
          NotFoundError,
        );
        const entries = (await stores.audit.list({ targetType: "firmware", action: "firmware.approve" }, 0, 10)).data;
        assert.equal(entries.length, 1);
        assert.deepEqual(entries[0].details.meaning, APPROVAL_MEANING);
        assert.deepEqual(entries[0].details.approvedBy, "second@example.com");
        const keyEntries = (await stores.audit.list({ targetType: "release_key" }, 0, 10)).data;
        assert.deepEqual(keyEntries.map((e) => e.action), ["release_key.revoke", "release_key.create"]);
        assert.equal((await stores.audit.verify()).firstBad, null);
      });
    },
  );
}
