import assert from "node:assert/strict";
import { ConflictError, ForbiddenError, NotFoundError } from "../../../server/db/errors.ts";
import { MAX_SAVED_VIEWS } from "../../../shared/schemas/saved_view.ts";
import { type ConformanceOptions, storeTest } from "../fixtures.ts";

export function savedViewCases(engine: string, options: ConformanceOptions) {
  storeTest(
    engine,
    options,
    "saved views: own and shared, unique names, owner-only changes, cap",
    async (stores, t) => {
      const { operators, savedViews } = stores;
      const admin = await operators.add("admin@example.com", "h", "admin");
      const op = await operators.add("op@example.com", "h", "operator");
      const viewer = await operators.add("viewer@example.com", "h", "viewer");
      const opActor = { operatorId: op._id, admin: false };
      const viewerActor = { operatorId: viewer._id, admin: false };
      const adminActor = { operatorId: admin._id, admin: true };
      let failedId = "";
      let mineId = "";

      await t.step("create keeps the query's members in a stable shape", async () => {
        const v = await savedViews.create(op._id, {
          name: "Failed updates",
          query: { update: "failed", sort: "lastLoggedIn", order: "desc", productTypeId: "pt1" },
          shared: true,
        });
        failedId = v._id;
        assert.deepEqual(v, {
          _id: v._id,
          name: "Failed updates",
          query: { productTypeId: "pt1", update: "failed", sort: "lastLoggedIn", order: "desc" },
          shared: true,
          owner: "op@example.com",
          createdAt: v.createdAt,
          updatedAt: v.createdAt,
        });
        assert.deepEqual(Object.keys(v.query), ["productTypeId", "update", "sort", "order"]);
        mineId = (await savedViews.create(op._id, { name: "mine", query: { seen: "never" }, shared: false }))._id;
        await savedViews.create(viewer._id, { name: "viewer's", query: {}, shared: false });
      });

      await t.step("names are unique per operator ignoring case; another operator may reuse one", async () => {
        await assert.rejects(
          savedViews.create(op._id, { name: "failed UPDATES", query: {}, shared: false }),
          (err: Error) => err instanceof ConflictError && /already have a saved view named/.test(err.message),
        );
        const same = await savedViews.create(viewer._id, { name: "Failed updates", query: {}, shared: false });
        assert.equal(same.owner, "viewer@example.com");
        await savedViews.remove(same._id, viewerActor);
        await assert.rejects(
          savedViews.create("no-such-operator", { name: "x", query: {}, shared: false }),
          NotFoundError,
        );
      });

      await t.step("list: one's own and the shared ones, by name ignoring case", async () => {
        assert.deepEqual((await savedViews.list(op._id)).map((v) => v.name), ["Failed updates", "mine"]);
        assert.deepEqual((await savedViews.list(viewer._id)).map((v) => [v.name, v.owner]), [
          ["Failed updates", "op@example.com"],
          ["viewer's", "viewer@example.com"],
        ]);
        assert.deepEqual((await savedViews.list(admin._id)).map((v) => v.name), ["Failed updates"]);
      });

      await t.step("update: rename, share, replace the query; owner only", async () => {
        const renamed = await savedViews.update(mineId, opActor, {
          name: "Never seen",
          query: { seen: "never", q: "x" },
        });
        assert.equal(renamed.name, "Never seen");
        assert.deepEqual(renamed.query, { q: "x", seen: "never" });
        assert.equal(renamed.shared, false);
        const cased = await savedViews.update(mineId, opActor, { name: "never SEEN" });
        assert.equal(cased.name, "never SEEN", "a view may change the case of its own name");
        await assert.rejects(savedViews.update(mineId, opActor, { name: "FAILED updates" }), ConflictError);
        await assert.rejects(
          savedViews.update(mineId, viewerActor, { shared: true }),
          NotFoundError,
          "private: unseen",
        );
        await assert.rejects(savedViews.update(mineId, adminActor, { shared: true }), NotFoundError);
        await assert.rejects(savedViews.update(failedId, viewerActor, { name: "mine now" }), ForbiddenError);
        await assert.rejects(savedViews.update(failedId, adminActor, { name: "admin's" }), ForbiddenError);
        await assert.rejects(savedViews.update("no-such-view", opActor, { shared: true }), NotFoundError);
        const unshared = await savedViews.update(failedId, opActor, { shared: false });
        assert.equal(unshared.shared, false);
        assert.deepEqual((await savedViews.list(viewer._id)).map((v) => v.name), ["viewer's"]);
        await savedViews.update(failedId, opActor, { shared: true });
      });

      await t.step("remove: the owner's, or an admin's for a shared view (audited); nobody else", async () => {
        await assert.rejects(savedViews.remove(failedId, viewerActor), ForbiddenError);
        await assert.rejects(
          savedViews.remove(mineId, adminActor),
          NotFoundError,
          "an admin does not see private views",
        );
        const before = (await stores.audit.list({ targetType: "saved_view" }, 0, 10)).data.length;
        assert.equal(before, 0, "saving, renaming, sharing and the owner's own deletions leave no entry");
        const gone = await savedViews.remove(failedId, adminActor);
        assert.equal(gone.name, "Failed updates");
        await assert.rejects(savedViews.remove(failedId, adminActor), NotFoundError);
        const own = await savedViews.remove(mineId, opActor);
        assert.equal(own.name, "never SEEN");
        const entries = (await stores.audit.list({ targetType: "saved_view" }, 0, 10)).data;
        assert.deepEqual(entries.map((e) => [e.action, e.target?.id, e.target?.name]), [
          ["saved_view.delete", failedId, "Failed updates"],
        ]);
        assert.deepEqual(entries[0].details, {
          owner: "op@example.com",
          query: { productTypeId: "pt1", update: "failed", sort: "lastLoggedIn", order: "desc" },
          shared: true,
        });
        assert.equal((await stores.audit.verify()).firstBad, null);
        assert.deepEqual(await savedViews.list(op._id), []);
      });

      await t.step(`at most ${MAX_SAVED_VIEWS} per operator (ConflictError)`, async () => {
        for (let i = 0; i < MAX_SAVED_VIEWS; i++) {
          await savedViews.create(admin._id, { name: `v${i}`, query: {}, shared: false });
        }
        await assert.rejects(
          savedViews.create(admin._id, { name: "one more", query: {}, shared: false }),
          (err: Error) => err instanceof ConflictError && /at most 50 saved views/.test(err.message),
        );
        assert.equal((await savedViews.list(admin._id)).length, MAX_SAVED_VIEWS);
      });

      await t.step("preferences: defaults, set, reset; per operator", async () => {
        assert.deepEqual(await savedViews.preferences(op._id), { deviceColumns: null });
        assert.deepEqual(await savedViews.setPreferences(op._id, { deviceColumns: ["deviceId", "app", "os"] }), {
          deviceColumns: ["deviceId", "app", "os"],
        });
        assert.deepEqual(await savedViews.setPreferences(op._id, {}), { deviceColumns: ["deviceId", "app", "os"] });
        assert.deepEqual(await savedViews.preferences(viewer._id), { deviceColumns: null });
        assert.deepEqual(await savedViews.setPreferences(op._id, { deviceColumns: null }), { deviceColumns: null });
        await assert.rejects(savedViews.setPreferences("no-such-operator", { deviceColumns: [] }), NotFoundError);
      });
    },
  );
}
