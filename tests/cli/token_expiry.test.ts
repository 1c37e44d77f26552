import assert from "node:assert/strict";
import { InvalidArgumentError } from "commander";
import { expiryOf } from "../../cli/commands/tokens/create.ts";

Deno.test("tokens create --expires: durations from now, dates and instants, anything else refused", () => {
  const now = Date.parse("2026-11-25T10:00:00.000Z");
  assert.equal(expiryOf("90m", now), "2026-11-25T11:30:00.000Z");
  assert.equal(expiryOf("12h", now), "2026-11-25T22:00:00.000Z");
  assert.equal(expiryOf("30d", now), "2026-12-25T10:00:00.000Z");
  assert.equal(expiryOf("2027-01-31", now), "2027-01-31T00:00:00.000Z");
  assert.equal(expiryOf("2027-01-31T08:30:00+02:00", now), "2027-01-31T06:30:00.000Z");
  for (const bad of ["soon", "30", "30w", "-1d", "2027-13-45", "31/01/2027", ""]) {
    assert.throws(() => expiryOf(bad, now), InvalidArgumentError, bad);
  }
});
