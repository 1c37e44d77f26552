import assert from "node:assert/strict";
import { runAs } from "../../../server/db/audit_context.ts";
import { InvalidError, NotFoundError, PreconditionFailedError } from "../../../server/db/errors.ts";
import { canonicalJson, entryHash, GENESIS_HASH } from "../../../server/db/rules/audit.ts";
import type { AuditActor } from "../../../shared/schemas/audit.ts";
import { checkin, type ConformanceOptions, storeTest } from "../fixtures.ts";

const ALICE: AuditActor = { type: "operator", id: "op-alice", name: "alice@example.com" };
const BOB: AuditActor = { type: "operator", id: "op-bob", name: "bob@example.com" };
const asAlice = <T>(fn: () => T) => runAs({ actor: ALICE, ip: "192.0.2.1" }, fn);

export function auditCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "audit: entries are chained, numbered and read newest first", async (stores, t) => {
    const { audit } = stores;
    await t.step("an empty trail verifies", async () => {
      assert.deepEqual(await audit.list({}, 0, 10), { data: [], total: 0, exact: true });
      assert.deepEqual(await audit.verify(), { checked: 0, firstBad: null });
    });
    await t.step("record takes actor and ip from the context; the system by default", async () => {
      const first = await asAlice(() =>
        audit.record({
          action: "auth.sign_in",
          target: { type: "operator", id: "op-alice", name: "alice@example.com" },
        })
      );
      assert.equal(first.seq, 1);
      assert.deepEqual(first.actor, ALICE);
      assert.equal(first.ip, "192.0.2.1");
      assert.deepEqual(first.details, {});
      const { hash, ...rest } = first;
      assert.equal(hash, entryHash(GENESIS_HASH, rest));
      const second = await audit.record({ action: "auth.password_change", target: null, details: { b: 1, a: [2] } });
      assert.deepEqual(second.actor, { type: "system", id: "system", name: "system" });
      assert.equal(second.ip, null);
      assert.equal(second.hash, entryHash(first.hash, { ...second, hash: undefined } as never));
    });
    await t.step("list: newest first, paged, the total counted", async () => {
      for (let i = 0; i < 5; i++) await audit.record({ action: "device.update", target: null, details: { i } });
      const page0 = await audit.list({}, 0, 3);
      assert.equal(page0.total, 7);
      assert.deepEqual(page0.data.map((e) => e.seq), [7, 6, 5]);
      assert.deepEqual((await audit.list({}, 2, 3)).data.map((e) => e.seq), [1]);
      assert.deepEqual((await audit.list({}, 3, 3)).data, []);
      assert.equal(await audit.count(), 7);
      // What is read back is what was hashed.
      const stored = (await audit.list({}, 0, 100)).data.find((e) => e.seq === 2)!;
      assert.deepEqual(stored.details, { a: [2], b: 1 });
      assert.deepEqual(await audit.verify(), { checked: 7, firstBad: null });
    });
    await t.step("before and after walk the trail in bounded batches", async () => {
      assert.deepEqual((await audit.before({}, null, 2)).map((e) => e.seq), [7, 6]);
      assert.deepEqual((await audit.before({}, 6, 2)).map((e) => e.seq), [5, 4]);
      assert.deepEqual((await audit.before({ action: "auth.sign_in" }, null, 5)).map((e) => e.seq), [1]);
      assert.deepEqual((await audit.after(5, 10)).map((e) => e.seq), [6, 7]);
    });
  });

  storeTest(engine, options, "audit: text the edge refuses is kept escaped and hashed as kept", async (stores) => {
    // docs/REQUIREMENTS.md §17: a NUL or a lone surrogate reaches the trail only where a security event must be recorded; both
    // engines keep the same bytes (SQLite would write U+FFFD for a surrogate, PostgreSQL refuses a NUL), so the chain
    // verifies on either and the hash of an entry is the same on both.
    const { audit } = stores;
    const strange = { type: "operator" as const, id: "op-\u0000", name: "\ud800@x.test" };
    const recorded = await runAs({ actor: strange, ip: "192.0.2.\u0000" }, () =>
      audit.record({
        action: "auth.sign_in_failed",
        target: { type: "operator", id: "a\udfffb", name: 'q"\\\u0000' },
        details: { email: "a\u0000b\ud800", ["k\u0000"]: ["\udfff"] },
      }));
    const kept = (await audit.list({}, 0, 1)).data[0];
    assert.deepEqual(kept.actor, { type: "operator", id: "op-\\u0000", name: "\\ud800@x.test" });
    assert.equal(kept.ip, "192.0.2.\\u0000");
    assert.deepEqual(kept.target, { type: "operator", id: "a\\udfffb", name: 'q\\"\\\\\\u0000' });
    assert.deepEqual(kept.details, { email: "a\u0000b\ud800", ["k\u0000"]: ["\udfff"] });
    assert.deepEqual(kept, recorded);
    const { hash, ...rest } = kept;
    assert.equal(hash, entryHash(GENESIS_HASH, rest));
    assert.deepEqual(await audit.verify(), { checked: 1, firstBad: null });
  });

  storeTest(engine, options, "audit: filters", async (stores) => {
    const { audit } = stores;
    await asAlice(() => audit.record({ action: "device.update", target: { type: "device", id: "D1", name: "D1" } }));
    await runAs(
      { actor: BOB, ip: null },
      () => audit.record({ action: "device.delete", target: { type: "device", id: "D2", name: "D2" } }),
    );
    await asAlice(() =>
      audit.record({ action: "product_type.update", target: { type: "product_type", id: "D1", name: "pt" } })
    );
    const seqs = async (f: Parameters<typeof audit.list>[0]) => {
      const page = await audit.list(f, 0, 10);
      assert.equal(page.total, page.data.length);
      assert.equal(page.exact, true);
      return page.data.map((e) => e.seq);
    };
    assert.deepEqual(await seqs({ actor: "alice@example.com" }), [3, 1]);
    assert.deepEqual(await seqs({ actor: "op-alice" }), []); // the name, not the id
    assert.deepEqual(await seqs({ actor: "bob@example.com" }), [2]);
    assert.deepEqual(await seqs({ action: "device.delete" }), [2]);
    assert.deepEqual(await seqs({ targetType: "device" }), [2, 1]);
    assert.deepEqual(await seqs({ targetId: "D1" }), [3, 1]);
    assert.deepEqual(await seqs({ targetType: "device", targetId: "D1" }), [1]);
    assert.deepEqual(await seqs({ actor: "nobody" }), []);
    const all = (await audit.list({}, 0, 10)).data;
    const t2 = all.find((e) => e.seq === 2)!.at;
    assert.deepEqual(await seqs({ from: t2 }), all.filter((e) => e.at >= t2).map((e) => e.seq));
    assert.deepEqual(await seqs({ to: t2 }), all.filter((e) => e.at < t2).map((e) => e.seq));
    // A filtered page past the first counts the matches.
    const p1 = await audit.list({ actor: "alice@example.com" }, 1, 1);
    assert.deepEqual([p1.data.map((e) => e.seq), p1.total, p1.exact], [[1], 2, true]);
  });

  storeTest(
    engine,
    options,
    "audit: device changes are recorded in their transaction, refusals are not",
    async (stores) => {
      const { audit, devices } = stores;
      await runAs({ actor: { type: "device", id: "D1", name: "D1" }, ip: "198.51.100.7" }, () => checkin(stores, "D1"));
      await checkin(stores, "D1"); // known: no entry
      let entries = (await audit.list({}, 0, 10)).data;
      assert.deepEqual(entries.map((e) => [e.action, e.actor.type, e.target?.id, e.ip]), [
        ["device.create", "device", "D1", "198.51.100.7"],
      ]);
      const etag = (await devices.get("D1"))!.etag;
      await asAlice(async () => {
        await assert.rejects(devices.patch("D1", { firmware: "nope" }), InvalidError);
        await assert.rejects(devices.patch("D9", { firmware: null }), NotFoundError);
      });
      const updated = await asAlice(() => devices.patch("D1", { firmware: null }, [etag]));
      await asAlice(async () => {
        await assert.rejects(devices.patch("D1", { firmware: null }, [etag]), PreconditionFailedError);
        await assert.rejects(devices.remove("D1", [etag]), PreconditionFailedError);
        await assert.rejects(devices.remove("D9"), NotFoundError);
        await devices.remove("D1", [updated.etag]);
      });
      entries = (await audit.list({}, 0, 10)).data;
      assert.deepEqual(entries.map((e) => e.action), ["device.delete", "device.update", "device.create"]);
      const del = entries[0];
      assert.deepEqual([del.actor, del.target, del.ip], [ALICE, { type: "device", id: "D1", name: "D1" }, "192.0.2.1"]);
      assert.deepEqual(entries[1].details, { changes: { firmware: null }, before: { firmware: null } });
      assert.equal(canonicalJson(entries[1].details), '{"before":{"firmware":null},"changes":{"firmware":null}}');
      assert.deepEqual(await audit.verify(), { checked: entries.length, firstBad: null });
    },
  );

  storeTest(
    engine,
    options,
    "audit: verify names the first entry edited, moved or removed behind its back",
    async (stores) => {
      const { audit } = stores;
      for (let i = 1; i <= 5; i++) await audit.record({ action: "device.update", target: null, details: { i } });
      assert.deepEqual(await audit.verify(), { checked: 5, firstBad: null });

      await options.exec(stores, `UPDATE audit_entries SET details = '{"i":30}' WHERE seq = 3`);
      let result = await audit.verify();
      assert.equal(result.checked, 2);
      assert.equal(result.firstBad?.seq, 3);
      await options.exec(stores, `UPDATE audit_entries SET details = '{"i":3}' WHERE seq = 3`);
      assert.deepEqual(await audit.verify(), { checked: 5, firstBad: null });

      // An edit that also recomputes that entry's own hash still breaks the next link.
      const third = (await audit.list({}, 2, 1)).data[0];
      const forged = { ...third, actor: { type: "system" as const, id: "x", name: "x" } };
      const { hash: _h, ...forgedBody } = forged;
      const second = (await audit.list({}, 3, 1)).data[0];
      await options.exec(
        stores,
        `UPDATE audit_entries SET actor_id = 'x', actor_name = 'x', hash = '${
          entryHash(second.hash, forgedBody)
        }' WHERE seq = 3`,
      );
      result = await audit.verify();
      assert.equal(result.firstBad?.seq, 4);

      await options.exec(stores, `DELETE FROM audit_entries WHERE seq >= 3`);
      result = await audit.verify();
      assert.deepEqual([result.checked, result.firstBad?.seq], [2, 3]);
    },
  );

  storeTest(engine, options, "audit: appends from two instances at once keep one chain", async (stores) => {
    const other = await options.another(stores);
    try {
      await Promise.all(
        Array.from(
          { length: 40 },
          (_, i) => (i % 2 ? other : stores).audit.record({ action: "device.update", target: null, details: { i } }),
        ),
      );
      const all = (await stores.audit.list({}, 0, 100)).data;
      assert.deepEqual(all.map((e) => e.seq), Array.from({ length: 40 }, (_, i) => 40 - i));
      assert.deepEqual(await stores.audit.verify(), { checked: 40, firstBad: null });
    } finally {
      await other.close();
    }
  });
}
