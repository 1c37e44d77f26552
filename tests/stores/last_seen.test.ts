/**
 * The coalesced last-seen times (server/db/last_seen.ts) alone: the latest time per device, one batch per window, a
 * failed write kept for the next one, close() writing what is left. The stores' use of it: tests/stores/cases.
 */
import assert from "node:assert/strict";
import { FLUSH_MS, seenBatch } from "../../server/db/last_seen.ts";

Deno.test("seenBatch: coalesces per device, writes within its window, keeps a failed batch, flushes at close", async () => {
  const written: Map<string, string>[] = [];
  let fail = false;
  const batch = seenBatch((seen) => {
    if (fail) return Promise.reject(new Error("database down"));
    written.push(new Map(seen));
    return Promise.resolve();
  });

  // Noted, not written: the latest time of each device is kept, an older one never replaces it.
  batch.note("a", "2026-01-01T00:00:01.000Z");
  batch.note("a", "2026-01-01T00:00:03.000Z");
  batch.note("a", "2026-01-01T00:00:02.000Z");
  batch.note("b", "2026-01-01T00:00:01.000Z");
  assert.equal(written.length, 0);

  // The timer writes them as one batch within the window (generous bound: the machine may be loaded).
  const started = Date.now();
  while (written.length === 0 && Date.now() - started < 10 * FLUSH_MS + 5_000) {
    await new Promise((r) => setTimeout(r, 20));
  }
  console.log(`batch written ${Date.now() - started} ms after the first note (window ${FLUSH_MS} ms)`);
  assert.deepEqual(written, [new Map([["a", "2026-01-01T00:00:03.000Z"], ["b", "2026-01-01T00:00:01.000Z"]])]);

  // A failed write keeps its times for the next flush, unless a newer one came meanwhile.
  fail = true;
  batch.note("c", "2026-01-01T00:00:05.000Z");
  batch.note("d", "2026-01-01T00:00:05.000Z");
  await batch.flush();
  fail = false;
  batch.note("d", "2026-01-01T00:00:09.000Z");
  await batch.flush();
  assert.deepEqual(written.at(-1), new Map([["c", "2026-01-01T00:00:05.000Z"], ["d", "2026-01-01T00:00:09.000Z"]]));

  // Nothing noted: no write. close() writes what is left and stops the timer (the sanitizer checks none is left).
  const count = written.length;
  await batch.flush();
  assert.equal(written.length, count);
  batch.note("e", "2026-01-01T00:00:10.000Z");
  await batch.close();
  assert.deepEqual(written.at(-1), new Map([["e", "2026-01-01T00:00:10.000Z"]]));
});

Deno.test("seenBatch: the times a write leaves (rows it skipped) go to the next flush, unless newer ones came", async () => {
  const written: Map<string, string>[] = [];
  let leave = new Map<string, string>();
  const batch = seenBatch((seen) => {
    written.push(new Map(seen));
    const left = leave;
    leave = new Map();
    return Promise.resolve(left);
  });
  batch.note("a", "2026-01-01T00:00:01.000Z");
  batch.note("b", "2026-01-01T00:00:01.000Z");
  leave = new Map([["a", "2026-01-01T00:00:01.000Z"], ["b", "2026-01-01T00:00:01.000Z"]]);
  await batch.flush();
  batch.note("b", "2026-01-01T00:00:02.000Z");
  await batch.flush();
  assert.deepEqual(written.at(-1), new Map([["a", "2026-01-01T00:00:01.000Z"], ["b", "2026-01-01T00:00:02.000Z"]]));
  await batch.close();
  assert.equal(written.length, 2, "nothing left after the second batch");
});
