import assert from "node:assert/strict";
import { etagMatches, parseRange } from "../../server/lib/byte_range.ts";

Deno.test("parseRange follows RFC 9110 for single byte ranges", () => {
  assert.equal(parseRange(undefined, 100), null);
  assert.deepEqual(parseRange("bytes=0-9", 100), { start: 0, end: 9 });
  assert.deepEqual(parseRange("bytes=90-", 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange("bytes=-10", 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange("bytes=-1000", 100), { start: 0, end: 99 });
  assert.deepEqual(parseRange("bytes=50-1000", 100), { start: 50, end: 99 });
  assert.deepEqual(parseRange(" bytes = 1-2 ", 100), { start: 1, end: 2 });
  assert.equal(parseRange("bytes=0-1,5-6", 100), null, "several ranges: the whole file");
  for (
    const bad of [
      "bytes=100-",
      "bytes=-0",
      "bytes=5-4",
      "bytes=a-b",
      "bytes=",
      "bytes=-",
      "0-1",
      "bytes=1-2-3",
    ]
  ) {
    assert.equal(parseRange(bad, 100), "unsatisfiable", bad);
  }
  assert.equal(parseRange("bytes=0-", 0), "unsatisfiable", "nothing to send from an empty file");
  // RFC 9110 §14.2: a range unit the server does not know is ignored (the whole file is sent).
  assert.equal(parseRange("lines=0-1", 100), null);
  assert.equal(parseRange("items=0-5", 100), null);
});

Deno.test("etagMatches compares weakly and understands lists and *", () => {
  assert.ok(etagMatches('"abc"', '"abc"'));
  assert.ok(etagMatches('W/"abc"', '"abc"'));
  assert.ok(etagMatches('"x", "abc"', '"abc"'));
  assert.ok(etagMatches("*", '"abc"'));
  assert.ok(!etagMatches('"abcd"', '"abc"'));
  assert.ok(!etagMatches(undefined, '"abc"'));
  assert.ok(!etagMatches("", '"abc"'));
});
