import assert from "node:assert/strict";
import { ConflictError } from "../../../server/db/errors.ts";
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
      assert.deepEqual(found, { id: found.id, email: "First@Example.com", passwordHash: "hash-1", passwordVersion: 1 });
      assert.deepEqual(await operators.current(" first@example.com"), found);
    });

    await t.step("add: ConflictError for an e-mail that exists", async () => {
      await operators.add("other@example.com", "hash-o");
      await assert.rejects(operators.add("OTHER@example.com", "x"), ConflictError);
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
    await stores.operators.add("op@example.com", "h1");
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
}
