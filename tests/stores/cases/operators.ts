import assert from "node:assert/strict";
import { ConflictError, NotFoundError } from "../../../server/db/errors.ts";
import { type ConformanceOptions, storeTest } from "../fixtures.ts";

export function operatorCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "operators: add, find, password versions", async (stores, t) => {
    const { operators } = stores;
    await t.step("addFirst adds only into an empty table", async () => {
      assert.equal(await operators.count(), 0);
      assert.equal(await operators.find("first@example.com"), null);
      assert.equal(await operators.addFirst(" First@Example.com ", "hash-1"), true);
      assert.equal(await operators.addFirst("second@example.com", "hash-2"), false);
      assert.equal(await operators.count(), 1);
    });

    await t.step("find and current ignore case and spaces", async () => {
      const found = (await operators.find("FIRST@example.COM"))!;
      assert.deepEqual(found, {
        id: found.id,
        email: "First@Example.com",
        passwordHash: "hash-1",
        passwordVersion: 1,
        role: "admin",
        disabled: false,
      });
      assert.deepEqual(await operators.current(" first@example.com"), found);
    });

    await t.step("add: ConflictError for an e-mail that exists", async () => {
      await operators.add("other@example.com", "hash-o", "operator");
      await assert.rejects(operators.add("OTHER@example.com", "x", "viewer"), ConflictError);
      assert.equal(await operators.count(), 2);
    });

    await t.step("setPassword bumps the version; false for nobody", async () => {
      assert.equal(await operators.setPassword("first@example.com", "hash-1b"), true);
      assert.deepEqual(
        await operators.current("first@example.com"),
        { ...(await operators.find("first@example.com"))!, passwordHash: "hash-1b", passwordVersion: 2 },
      );
      assert.equal(await operators.setPassword("nobody@example.com", "x"), false);
    });
  });

  storeTest(engine, options, "operators: a change by another instance is current at once", async (stores) => {
    await stores.operators.add("op@example.com", "h1", "operator");
    assert.equal((await stores.operators.current("op@example.com"))!.passwordVersion, 1);
    const other = await options.another(stores);
    try {
      assert.equal(await other.operators.setPassword("op@example.com", "h2"), true);
    } finally {
      await other.close();
    }
    const now = (await stores.operators.current("op@example.com"))!;
    assert.deepEqual([now.passwordHash, now.passwordVersion], ["h2", 2]);
  });

  storeTest(engine, options, "operators: roles, disabling, the last active admin", async (stores, t) => {
    const { operators } = stores;
    await operators.addFirst("admin@example.com", "h-admin");
    const admin = (await operators.list())[0];
    await t.step("the first operator is an admin; add takes a role; list is oldest first", async () => {
      assert.deepEqual({ email: admin.email, role: admin.role, disabled: admin.disabled }, {
        email: "admin@example.com",
        role: "admin",
        disabled: false,
      });
      const viewer = await operators.add(" Viewer@example.com ", "h-v", "viewer");
      assert.deepEqual({ email: viewer.email, role: viewer.role }, { email: "Viewer@example.com", role: "viewer" });
      assert.deepEqual((await operators.list()).map((o) => o.email), ["admin@example.com", "Viewer@example.com"]);
    });

    await t.step("the last active admin cannot be demoted or disabled; nothing changes", async () => {
      await assert.rejects(operators.update(admin._id, { role: "operator" }), ConflictError);
      await assert.rejects(operators.update(admin._id, { disabled: true }), ConflictError);
      const same = (await operators.current("admin@example.com"))!;
      assert.deepEqual([same.role, same.disabled, same.passwordVersion], ["admin", false, 1]);
    });

    await t.step("demoting or disabling bumps the version (tokens end); promoting does not", async () => {
      const other = await operators.add("second@example.com", "h-2", "operator");
      await operators.update(other._id, { role: "admin" });
      assert.equal((await operators.current("second@example.com"))!.passwordVersion, 1);
      // With a second admin the first may now step down.
      assert.equal((await operators.update(admin._id, { role: "viewer" })).role, "viewer");
      assert.equal((await operators.current("admin@example.com"))!.passwordVersion, 2);
      const disabled = await operators.update(other._id, { disabled: true }).catch((e) => e);
      assert.ok(disabled instanceof ConflictError, "the only active admin left cannot be disabled");
      await operators.update(admin._id, { role: "admin" });
      assert.equal((await operators.update(other._id, { disabled: true })).disabled, true);
      const now = (await operators.current("second@example.com"))!;
      assert.deepEqual([now.disabled, now.passwordVersion], [true, 2]);
    });

    await t.step("reset a password by id; unknown ids are NotFoundError", async () => {
      const viewer = (await operators.list()).find((o) => o.role === "viewer")!;
      await operators.resetPassword(viewer._id, "h-v2");
      const now = (await operators.current("viewer@example.com"))!;
      assert.deepEqual([now.passwordHash, now.passwordVersion], ["h-v2", 2]);
      await assert.rejects(operators.resetPassword("nobody-id", "x"), NotFoundError);
      await assert.rejects(operators.update("nobody-id", { role: "viewer" }), NotFoundError);
    });
  });
}
