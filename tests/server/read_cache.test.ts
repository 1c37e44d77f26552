/** The read cache of GET devices' pages: kept by the data's version, which a request may bring already read. */
import assert from "node:assert/strict";
import { ReadCache } from "../../server/lib/read_cache.ts";

Deno.test("read cache: kept under the version; a version the request read is used as is; an older one is not kept", async () => {
  let version = 1, reads = 0, made = 0;
  const cache = new ReadCache(() => (reads++, Promise.resolve(version)));
  const make = (what: string) => () => (made++, Promise.resolve({ what }));

  assert.equal(await cache.get("k", make("v1")), '{"what":"v1"}');
  assert.equal(await cache.get("k", make("again")), '{"what":"v1"}', "kept while the version stays");
  assert.deepEqual([reads, made], [2, 1]);

  assert.equal(await cache.get("k", make("known"), 1), '{"what":"v1"}', "the request's version: no read");
  assert.equal(reads, 2);

  assert.equal(await cache.get("k", make("v2"), 2), '{"what":"v2"}', "a newer version makes it again");
  assert.equal(await cache.get("k", make("old"), 1), '{"what":"old"}', "an older version gets a fresh answer");
  assert.equal(await cache.get("k", make("not kept"), 2), '{"what":"v2"}', "which did not replace the kept one");
  version = 3;
  assert.equal(await cache.get("k", make("v3")), '{"what":"v3"}');
  assert.equal(made, 4);
});
