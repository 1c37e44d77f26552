import assert from "node:assert/strict";
import { parseIfMatch } from "../../server/lib/if_match.ts";

Deno.test("parseIfMatch: *, lists of strong tags, weak tags dropped, malformed values null", () => {
  assert.equal(parseIfMatch(undefined), undefined);
  assert.equal(parseIfMatch("*"), "*");
  assert.equal(parseIfMatch(" *\t"), "*");
  assert.deepEqual(parseIfMatch('"17"'), ['"17"']);
  assert.deepEqual(parseIfMatch('""'), ['""']);
  assert.deepEqual(parseIfMatch('"a", W/"b",\t"c"'), ['"a"', '"c"']);
  assert.deepEqual(parseIfMatch('W/"a"'), [], "a weak tag is well-formed but can never match");
  assert.deepEqual(parseIfMatch('"a,b", "c"'), ['"a,b"', '"c"'], "a tag may hold commas");
  assert.deepEqual(parseIfMatch(', "a",, '), ['"a"'], "empty list elements count for nothing");
  assert.deepEqual(parseIfMatch('"caf\xe9"'), ['"caf\xe9"'], "obs-text is allowed");
  for (const bad of ["", " ", ",", " , ,", "abc", "17", '"open', '"a" "b"', '*, "a"', '"a", *', 'w/"a"', 'W/ "a"']) {
    assert.equal(parseIfMatch(bad), null, JSON.stringify(bad));
  }
  for (const bad of ['"a";x', '"in"side"', '"tab\there"', '"nul\x00"', '"del\x7f"', "'single'"]) {
    assert.equal(parseIfMatch(bad), null, JSON.stringify(bad));
  }
});
