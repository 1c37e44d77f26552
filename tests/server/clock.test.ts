/** The stores' clock (server/db/clock.ts): atInstant pins now() for one call chain only; the audit keeps real time. */
import assert from "node:assert/strict";
import { atInstant, now, wallClock } from "../../server/db/clock.ts";

const PAST = "2025-03-01T10:00:00.000Z";

Deno.test("atInstant pins now() across awaits inside it, and nowhere else", async () => {
  const before = Date.now();
  const inside = await atInstant(PAST, async () => {
    const first = now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const nested = atInstant("2025-03-02T00:00:00.000Z", () => now());
    return [first, now(), nested, Date.parse(wallClock()) >= before];
  });
  assert.deepEqual(inside, [PAST, PAST, "2025-03-02T00:00:00.000Z", true]);
  assert.ok(Date.parse(now()) >= before, "outside, now() is the real time again");

  // Two chains at once each keep their own instant; a chain started outside sees the real time.
  const [a, b, c] = await Promise.all([
    atInstant(PAST, async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return now();
    }),
    atInstant("2024-01-01T00:00:00.000Z", async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return now();
    }),
    (async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return now();
    })(),
  ]);
  assert.deepEqual([a, b], [PAST, "2024-01-01T00:00:00.000Z"]);
  assert.ok(Date.parse(c) >= before, c);
});
