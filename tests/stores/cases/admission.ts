/** Device identity and admission (docs/REQUIREMENTS.md §11) in the stores: enrolment steps, operator actions, lists and counts. */
import assert from "node:assert/strict";
import { ConflictError, NotFoundError } from "../../../server/db/errors.ts";
import { checkin, type ConformanceOptions, INFO, PRODUCT, rejectsWith, storeTest } from "../fixtures.ts";

const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);

export function admissionCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "admission: enrolment, accept, reject, reset, pre-authorize", async (stores, t) => {
    const { deviceApi, devices } = stores;

    await t.step("manual: an unknown device is recorded pending, without a token, and stays pending", async () => {
      assert.equal(await deviceApi.enroll("d1", INFO, HASH_A, false), "pending");
      assert.equal(await deviceApi.enroll("d1", { ...INFO, app: "2" }, HASH_A, false), "pending");
      const d = (await devices.get("d1"))!;
      assert.deepEqual([d.admission, d.credentialsIssuedAt, d.lastLoggedIn, d.versionInfo?.app], [
        "pending",
        null,
        null,
        "2",
      ]);
      assert.deepEqual(await deviceApi.credentials("d1"), { admission: "pending", tokenHash: null });
      assert.equal(await deviceApi.credentials("nobody"), null);
    });

    await t.step("accept, then one token is issued; a second enrolment is has_token", async () => {
      const before = (await devices.get("d1"))!;
      const accepted = await devices.admit("d1", "accept");
      assert.equal(accepted.admission, "accepted");
      assert.notEqual(accepted.etag, before.etag, "an admission change moves the revision");
      assert.equal(await deviceApi.enroll("d1", INFO, HASH_A, false), "issued");
      assert.deepEqual(await deviceApi.credentials("d1"), { admission: "accepted", tokenHash: HASH_A });
      assert.ok((await devices.get("d1"))!.credentialsIssuedAt);
      assert.equal(await deviceApi.enroll("d1", INFO, HASH_B, false), "has_token");
      assert.equal((await deviceApi.credentials("d1"))!.tokenHash, HASH_A, "a refused enrolment changes nothing");
      // Accepting an accepted device keeps its token.
      await devices.admit("d1", "accept");
      assert.equal((await deviceApi.credentials("d1"))!.tokenHash, HASH_A);
    });

    await t.step("a check-in of a known device only; an unknown one is NotFoundError and not created", async () => {
      const config = await deviceApi.checkinKnown("d1", INFO, PRODUCT);
      assert.equal(config.deviceId, "d1");
      assert.ok((await devices.get("d1"))!.lastLoggedIn);
      await rejectsWith(
        deviceApi.checkinKnown("ghost", INFO, PRODUCT),
        NotFoundError,
        "No device with deviceId ghost.",
      );
      assert.equal(await devices.get("ghost"), null);
    });

    await t.step("reset drops the token and keeps the admission; reject drops it and refuses", async () => {
      const reset = await devices.admit("d1", "reset_credentials");
      assert.deepEqual([reset.admission, reset.credentialsIssuedAt], ["accepted", null]);
      assert.equal((await deviceApi.credentials("d1"))!.tokenHash, null);
      assert.equal(await deviceApi.enroll("d1", INFO, HASH_B, false), "issued");
      const rejected = await devices.admit("d1", "reject");
      assert.deepEqual([rejected.admission, rejected.credentialsIssuedAt], ["rejected", null]);
      assert.equal((await deviceApi.credentials("d1"))!.tokenHash, null);
      assert.equal(await deviceApi.enroll("d1", INFO, HASH_A, true), "rejected", "even under auto admission");
      await rejectsWith(devices.admit("nobody", "accept"), NotFoundError, "No device with deviceId nobody.");
    });

    await t.step("auto: an unknown device, and a pending one, get their token at once", async () => {
      assert.equal(await deviceApi.enroll("d2", INFO, HASH_A, true), "issued");
      assert.equal((await devices.get("d2"))!.admission, "accepted");
      assert.equal(await deviceApi.enroll("d3", INFO, HASH_A, false), "pending");
      assert.equal(await deviceApi.enroll("d3", INFO, HASH_B, true), "issued");
      assert.equal((await deviceApi.credentials("d3"))!.tokenHash, HASH_B);
    });

    await t.step("devices of the shared mode count as accepted without a token", async () => {
      await checkin(stores, "old");
      assert.deepEqual(await deviceApi.credentials("old"), { admission: "accepted", tokenHash: null });
      assert.equal(await deviceApi.enroll("old", INFO, HASH_A, false), "issued");
    });

    await t.step("pre-authorize one (ConflictError when known) and many (known ones listed)", async () => {
      const one = await devices.preauthorize("p1");
      assert.deepEqual([one.admission, one.credentialsIssuedAt, one.lastLoggedIn, one.versionInfo], [
        "accepted",
        null,
        null,
        null,
      ]);
      await rejectsWith(
        devices.preauthorize("d1"),
        ConflictError,
        "Device d1 is already known (admission: rejected); there is nothing to pre-authorize.",
      );
      assert.deepEqual(await devices.preauthorizeMany(["p2", "p3", "p2", "d1", "p1"]), {
        created: ["p2", "p3"],
        existing: [{ deviceId: "d1", admission: "rejected" }, { deviceId: "p1", admission: "accepted" }],
      });
      assert.equal(await deviceApi.enroll("p2", INFO, HASH_A, false), "issued");
    });

    await t.step("the list filters by admission (with q and paging); counts by admission", async () => {
      await deviceApi.enroll("w1", INFO, HASH_A, false);
      await deviceApi.enroll("w2", INFO, HASH_A, false);
      const pending = await devices.list(0, 25, undefined, { admission: "pending" });
      assert.deepEqual([pending.data.map((d) => d.deviceId), pending.total], [["w1", "w2"], 2]);
      const page = await devices.list(1, 1, undefined, { admission: "pending" });
      assert.deepEqual([page.data.map((d) => d.deviceId), page.total], [["w2"], 2]);
      const both = await devices.list(0, 25, "W2", { admission: "pending" });
      assert.deepEqual(both.data.map((d) => d.deviceId), ["w2"]);
      assert.equal((await devices.list(0, 25, undefined, { admission: "rejected" })).total, 1);
      assert.deepEqual(await devices.admissionCounts(), { pending: 2, accepted: 6, rejected: 1 });
      assert.equal((await devices.list(0, 25)).total, 9);
    });
  });
}
