/** The quiet polls' answers in memory (server/db/answer_cache.ts) alone: valid for their key only, bounded by size. */
import assert from "node:assert/strict";
import { AnswerCache } from "../../server/db/answer_cache.ts";

Deno.test("AnswerCache: an answer is given for its own key only; the oldest go first when the size is reached", () => {
  const cache = new AnswerCache<{ v: string }>(2_000);
  cache.set("a", "k1", { v: "a" });
  assert.deepEqual(cache.get("a", "k1"), { v: "a" });
  assert.equal(cache.get("a", "k2"), undefined, "another key (a generation moved): not given");
  assert.equal(cache.get("b", "k1"), undefined);
  cache.set("a", "k2", { v: "a2" });
  assert.equal(cache.get("a", "k1"), undefined, "replaced");
  assert.equal(cache.size.answers, 1);

  for (let i = 0; i < 50; i++) cache.set(`d${i}`, "k", { v: "x".repeat(50) });
  assert.ok(cache.size.bytes <= 2_000, `${cache.size.bytes} bytes held`);
  assert.ok(cache.size.answers < 50);
  assert.equal(cache.get("a", "k2"), undefined, "the oldest was dropped");
  assert.deepEqual(cache.get("d49", "k"), { v: "x".repeat(50) }, "the newest is held");
  cache.set("huge", "k", { v: "x".repeat(5_000) });
  assert.equal(cache.get("huge", "k"), undefined, "an answer larger than the whole bound is not held");
});
