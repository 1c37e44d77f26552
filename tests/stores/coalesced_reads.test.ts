/**
 * CoalescedReads (server/db/coalesced_reads.ts), the PostgreSQL quiet poll's batching: reads asked while the statements
 * in flight are out go as one; a read never joins a statement sent before it was asked; a failure reaches exactly the
 * callers of its statement. (The polls through it on PostgreSQL: tests/postgres/checkin_replicas.test.ts, tests/device
 * on PostgreSQL.)
 */
import assert from "node:assert/strict";
import { CoalescedReads } from "../../server/db/coalesced_reads.ts";

/** A readMany whose statements the test answers by hand: each call's keys, and its answer (the call's number). */
function manual() {
  const calls: { keys: string[]; answer: (fail?: Error) => void }[] = [];
  const readMany = (keys: string[]) =>
    new Promise<Map<string, string>>((resolve, reject) => {
      const n = calls.length;
      calls.push({
        keys,
        answer: (fail) =>
          fail ? reject(fail) : resolve(new Map(keys.filter((k) => k !== "none").map((k) => [k, `${k}@${n}`]))),
      });
    });
  return { calls, readMany };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("coalesced reads: one out at a time, the reads asked meanwhile go as one statement, each after it was asked", async () => {
  const { calls, readMany } = manual();
  const reads = new CoalescedReads(readMany, 1, 100);
  const a = reads.get("a");
  await settle();
  assert.deepEqual(calls.map((c) => c.keys), [["a"]]);
  // Asked while a's statement is out: b, c, an unknown key, and a again (a's statement was sent before it was asked).
  const later = [reads.get("b"), reads.get("c"), reads.get("none"), reads.get("a"), reads.get("b")];
  await settle();
  assert.deepEqual(calls.length, 1);
  calls[0].answer();
  assert.deepEqual(await a, "a@0");
  await settle();
  assert.deepEqual(calls.map((c) => c.keys), [["a"], ["b", "c", "none", "a"]]);
  calls[1].answer();
  assert.deepEqual(await Promise.all(later), ["b@1", "c@1", undefined, "a@1", "b@1"]);
});

Deno.test("coalesced reads: `inFlight` statements out at once; a batch holds at most `maxKeys` keys", async () => {
  const { calls, readMany } = manual();
  const reads = new CoalescedReads(readMany, 2, 2);
  const first = ["a", "b", "c", "d", "e"].map((k) => reads.get(k));
  await settle();
  // The five asked in one turn: two statements of two keys out, the fifth waits for one of them.
  assert.deepEqual(calls.map((c) => c.keys), [["a", "b"], ["c", "d"]]);
  calls[1].answer();
  await settle();
  assert.deepEqual(calls.map((c) => c.keys), [["a", "b"], ["c", "d"], ["e"]]);
  calls[0].answer();
  calls[2].answer();
  assert.deepEqual(await Promise.all(first), ["a@0", "b@0", "c@1", "d@1", "e@2"]);
});

Deno.test("coalesced reads: a failed statement fails its callers only; the next one is read", async () => {
  const { calls, readMany } = manual();
  const reads = new CoalescedReads(readMany, 1, 100);
  const a = reads.get("a");
  await settle();
  const b = reads.get("b");
  await settle();
  calls[0].answer(new Error("gone"));
  await assert.rejects(a, /gone/);
  await settle();
  assert.deepEqual(calls.map((c) => c.keys), [["a"], ["b"]]);
  calls[1].answer();
  assert.deepEqual(await b, "b@1");
  const again = reads.get("a");
  await settle();
  calls[2].answer();
  assert.deepEqual(await again, "a@2");
});
