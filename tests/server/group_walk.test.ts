/** rules/product_type_groups.ts's GroupWalk: sort=productType's groups counted only as far as the page needs. */
import assert from "node:assert/strict";
import { GroupWalk } from "../../server/db/rules/product_type_groups.ts";
import { seenPruneBefore, VIEW_COUNT_LIMIT } from "../../server/db/rules/device_view.ts";

/** Walks `sizes` (by group key) as an engine would: each group counted up to the cap it is given. */
function walk(sizes: [string | null, number][], offset: number, perPage: number, count = true) {
  const w = new GroupWalk(sizes.map(([k]) => k), offset, perPage, count);
  const asked: [string | null, number][] = [];
  for (let g = w.next(); g !== null; g = w.next()) {
    asked.push([g.key, g.cap]);
    w.counted(Math.min(g.cap, new Map(sizes).get(g.key)!));
  }
  return { asked, ...w.result() };
}

const L = VIEW_COUNT_LIMIT;

Deno.test("GroupWalk: every group counted fully while the matches end before the page's end plus the limit", () => {
  const r = walk([[null, 3], ["a", 0], ["b", 10]], 0, 5);
  assert.deepEqual(r.asked, [[null, 5 + L], ["a", 2 + L], ["b", 2 + L]]);
  assert.deepEqual(r.slices, [{ key: null, offset: 0, limit: 3 }, { key: "b", offset: 0, limit: 2 }]);
  assert.deepEqual([r.total, r.exact], [13, true]);
});

Deno.test("GroupWalk: the walk stops once the page and the limit are counted; the total is a lower bound", () => {
  const r = walk([[null, 10], ["a", 1000], ["b", 1000], ["c", 5]], 20, 10);
  // need = 20 + 10 + L; group a is counted only up to the rest; b and c never
  assert.deepEqual(r.asked, [[null, 30 + L], ["a", 20 + L]]);
  assert.deepEqual(r.slices, [{ key: "a", offset: 10, limit: 10 }]);
  assert.deepEqual([r.total, r.exact], [30 + L, false]);
});

Deno.test("GroupWalk: a page straddling groups, an empty group between them", () => {
  const r = walk([[null, 12], ["a", 0], ["b", 4], ["c", 100]], 10, 8);
  assert.deepEqual(r.slices, [
    { key: null, offset: 10, limit: 2 },
    { key: "b", offset: 0, limit: 4 },
    { key: "c", offset: 0, limit: 2 },
  ]);
  assert.deepEqual([r.total, r.exact], [116, true]);
});

Deno.test("GroupWalk: a page beyond the end knows how many there are", () => {
  const r = walk([[null, 7], ["a", 6]], 50, 25);
  assert.deepEqual([r.slices, r.total, r.exact], [[], 13, true]);
});

Deno.test("GroupWalk: exactly the page's end plus the limit is a lower bound (as cappedTotal's)", () => {
  const r = walk([[null, 10 + L]], 0, 10);
  assert.deepEqual([r.total, r.exact], [10 + L, false]);
  const less = walk([[null, 9 + L]], 0, 10);
  assert.deepEqual([less.total, less.exact], [9 + L, true]);
});

Deno.test("GroupWalk: without a total, groups are counted only to the page's end", () => {
  const r = walk([[null, 10], ["a", 1000]], 5, 10, false);
  assert.deepEqual(r.asked, [[null, 15], ["a", 5]]);
  assert.deepEqual(r.slices, [{ key: null, offset: 5, limit: 5 }, { key: "a", offset: 0, limit: 5 }]);
});

Deno.test("GroupWalk: a count past the cap is taken as the cap; counting after the end is refused", () => {
  const w = new GroupWalk([null, "a"], 0, 1, false);
  w.counted(99);
  assert.equal(w.next(), null);
  assert.deepEqual(w.result().total, 1);
  assert.throws(() => w.counted(1), /no group to count/);
  assert.throws(() => new GroupWalk([null], 0, 1, true).result(), /not over/);
});

Deno.test("seenPruneBefore: the hour 8 days (the longest seen window and a day) before", () => {
  assert.equal(seenPruneBefore(new Date("2026-11-26T03:59:00.000Z")), "h:2026-11-18T03");
});
