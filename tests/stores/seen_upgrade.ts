/**
 * The upgrade to device_seen (PostgreSQL migration 18, SQLite 23; docs/DECISIONS.md, "Last-seen writes of a
 * million-device fleet: the exact time beside the row"), checked the same way on both engines: devices written by the
 * release before, with their last_logged_in, then the stores opened on it.
 */
import assert from "node:assert/strict";
import type { OpenStores } from "../../server/db/mod.ts";
import { INFO, PRODUCT } from "./fixtures.ts";

const HOUR = 3600_000;

/** The devices the release before holds: [id, product type, last_logged_in], with SEEN_TYPE as the one type. */
export function seenUpgradeRows(now: number): [string, string | null, string | null][] {
  const at = (h: number) => new Date(now - h * HOUR).toISOString();
  return [["recent", "pt", at(1)], ["recent-2", null, at(2)], ["days", "pt", at(72)], ["old", null, at(24 * 10)], [
    "never",
    "pt",
    null,
  ]];
}
export const SEEN_TYPE = "pt";
/** The version info those rows hold, as a check-in stores it. */
export const SEEN_INFO = JSON.stringify(INFO);

export async function checkSeenUpgrade(stores: OpenStores, rows: [string, string | null, string | null][]) {
  const { devices } = stores;
  const at = new Map(rows.map(([id, , t]) => [id, t]));
  for (const [id, , t] of rows) assert.equal((await devices.get(id))!.lastLoggedIn, t, `${id}'s time moved`);
  assert.deepEqual(
    (await devices.view({ filter: {}, sort: "lastLoggedIn", order: "asc" }, 0, 10, PRODUCT)).data.map((d) =>
      d.deviceId
    ),
    ["never", "old", "days", "recent-2", "recent"],
  );
  const ids = async (filter: object, sort = "deviceId") =>
    // deno-lint-ignore no-explicit-any
    (await devices.view({ filter, sort, order: "asc" } as any, 0, 10, PRODUCT)).data.map((d) => d.deviceId);
  assert.deepEqual(await ids({ seen: "24h" }), ["recent", "recent-2"]);
  assert.deepEqual(await ids({ seen: "7d" }, "updatedAt"), ["days", "recent", "recent-2"].sort());
  assert.deepEqual(await ids({ seen: "stale" }), ["old"]);
  assert.deepEqual(await ids({ seen: "never" }), ["never"]);
  // The copies of the product type: the sort by last seen filtered by it.
  assert.deepEqual(await ids({ productTypeId: SEEN_TYPE }, "lastLoggedIn"), ["never", "days", "recent"]);
  const overview = (await devices.overview(PRODUCT)).devices;
  assert.deepEqual(
    [overview.total, overview.seen24h, overview.seen7d, overview.stale, overview.never],
    [5, 2, 3, 1, 1],
  );
  // A quiet check-in after the upgrade is written by the batch; a deletion takes the time with it.
  const before = at.get("old")!;
  await stores.deviceApi.checkin("old", INFO, PRODUCT);
  await stores.deviceApi.flushSeen();
  const moved = (await devices.get("old"))!.lastLoggedIn!;
  assert.ok(moved > before, "the batch writes the upgraded device's time");
  assert.deepEqual(await ids({ seen: "24h" }), ["old", "recent", "recent-2"]);
  await devices.remove("recent");
  const after = (await devices.overview(PRODUCT)).devices;
  assert.deepEqual([after.total, after.seen24h, after.stale], [4, 2, 0]);
}
