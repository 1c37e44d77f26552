import assert from "node:assert/strict";
import { ConflictError, ForbiddenError, NotFoundError } from "../../../server/db/errors.ts";
import { MAX_TOKENS_PER_OWNER } from "../../../shared/schemas/api_token.ts";
import { type ConformanceOptions, storeTest } from "../fixtures.ts";

const hash = (n: number) => n.toString(16).padStart(64, "0");

export function apiTokenCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "api tokens: create, current, list, touch, revoke", async (stores, t) => {
    const { operators, apiTokens } = stores;
    const admin = await operators.add("admin@example.com", "h", "admin");
    const op = await operators.add("op@example.com", "h", "operator");
    const viewer = await operators.add("viewer@example.com", "h", "viewer");
    let opToken = "";

    await t.step("create keeps the hash, answers the token without it", async () => {
      const token = await apiTokens.create(op._id, {
        name: "CI",
        scopes: ["read", "firmware:write"],
        expiresAt: "2099-01-01T00:00:00.000Z",
      }, hash(1));
      opToken = token._id;
      assert.deepEqual(token, {
        _id: token._id,
        name: "CI",
        scopes: ["read", "firmware:write"],
        createdAt: token.createdAt,
        expiresAt: "2099-01-01T00:00:00.000Z",
        lastUsedAt: null,
        owner: "op@example.com",
      });
      assert.ok(!JSON.stringify(token).includes(hash(1)));
    });

    await t.step("scopes beyond the owner's role: ForbiddenError, nothing added", async () => {
      await assert.rejects(
        apiTokens.create(viewer._id, { name: "w", scopes: ["read", "devices:write"], expiresAt: null }, hash(2)),
        (err: Error) => err instanceof ForbiddenError && /devices:write is beyond the viewer role/.test(err.message),
      );
      const read = await apiTokens.create(viewer._id, { name: "r", scopes: ["read"], expiresAt: null }, hash(3));
      assert.equal(read.expiresAt, null);
      await assert.rejects(
        apiTokens.create("no-such-operator", { name: "x", scopes: ["read"], expiresAt: null }, hash(4)),
        NotFoundError,
      );
      assert.equal((await apiTokens.list(null)).length, 2);
    });

    await t.step("current: the token and its owner as they are now", async () => {
      const found = (await apiTokens.current(hash(1)))!;
      assert.equal(found.token._id, opToken);
      assert.deepEqual(
        { id: found.owner.id, email: found.owner.email, role: found.owner.role, disabled: found.owner.disabled },
        { id: op._id, email: "op@example.com", role: "operator", disabled: false },
      );
      assert.equal(await apiTokens.current(hash(99)), null);
      await operators.update(op._id, { role: "viewer" });
      assert.equal((await apiTokens.current(hash(1)))!.owner.role, "viewer");
      await operators.update(op._id, { role: "operator", disabled: true });
      assert.equal((await apiTokens.current(hash(1)))!.owner.disabled, true);
      await operators.update(op._id, { disabled: false });
    });

    await t.step("touch writes lastUsedAt only when older than notBefore", async () => {
      await apiTokens.touch(opToken, "2026-01-01T00:00:00.000Z", "2025-12-31T23:59:00.000Z");
      assert.equal((await apiTokens.current(hash(1)))!.token.lastUsedAt, "2026-01-01T00:00:00.000Z");
      await apiTokens.touch(opToken, "2026-01-01T00:00:30.000Z", "2025-12-31T23:59:30.000Z");
      assert.equal((await apiTokens.current(hash(1)))!.token.lastUsedAt, "2026-01-01T00:00:00.000Z");
      await apiTokens.touch(opToken, "2026-01-01T00:01:00.000Z", "2026-01-01T00:00:00.001Z");
      assert.equal((await apiTokens.current(hash(1)))!.token.lastUsedAt, "2026-01-01T00:01:00.000Z");
    });

    await t.step("list: one's own, or everyone's, newest first", async () => {
      assert.deepEqual((await apiTokens.list(op._id)).map((x) => x.name), ["CI"]);
      assert.deepEqual(await apiTokens.list(admin._id), []);
      assert.deepEqual(
        new Set((await apiTokens.list(null)).map((x) => x.owner)),
        new Set([
          "op@example.com",
          "viewer@example.com",
        ]),
      );
    });

    await t.step("revoke: only one's own unless admin; gone at once", async () => {
      await assert.rejects(apiTokens.revoke(opToken, { operatorId: viewer._id, admin: false }), ForbiddenError);
      assert.ok(await apiTokens.current(hash(1)));
      await assert.rejects(apiTokens.revoke("no-such-token", { operatorId: op._id, admin: false }), NotFoundError);
      const gone = await apiTokens.revoke(opToken, { operatorId: admin._id, admin: true });
      assert.equal(gone.name, "CI");
      assert.equal(await apiTokens.current(hash(1)), null);
      await assert.rejects(apiTokens.revoke(opToken, { operatorId: admin._id, admin: true }), NotFoundError);
    });

    await t.step("create and revoke are in the audit trail, in their transactions; refusals are not", async () => {
      const entries = (await stores.audit.list({ targetType: "api_token" }, 0, 100)).data;
      assert.deepEqual(entries.map((e) => [e.action, e.target?.name]), [
        ["api_token.revoke", "CI"],
        ["api_token.create", "r"],
        ["api_token.create", "CI"],
      ]);
      assert.deepEqual(entries[2].details, {
        owner: "op@example.com",
        scopes: ["read", "firmware:write"],
        expiresAt: "2099-01-01T00:00:00.000Z",
      });
      assert.equal(entries[2].target?.id, opToken);
      assert.ok(!JSON.stringify(entries).includes(hash(1)), "no hash of a secret in the trail");
      assert.equal((await stores.audit.verify()).firstBad, null);
    });

    await t.step(`at most ${MAX_TOKENS_PER_OWNER} per owner (ConflictError)`, async () => {
      for (let i = 0; i < MAX_TOKENS_PER_OWNER; i++) {
        await apiTokens.create(admin._id, { name: `t${i}`, scopes: ["read"], expiresAt: null }, hash(1000 + i));
      }
      await assert.rejects(
        apiTokens.create(admin._id, { name: "one more", scopes: ["read"], expiresAt: null }, hash(5000)),
        ConflictError,
      );
      assert.equal((await apiTokens.list(admin._id)).length, MAX_TOKENS_PER_OWNER);
    });
  });
}
