/**
 * Last seen kept as the hour beside the row and the exact time in device_seen (docs/DECISIONS.md, "Last-seen writes of
 * a million-device fleet: the exact time beside the row"): check-ins on both sides of the `seen` filters' bounds, so
 * the hour each bound falls in is decided by the exact time, in every view, sort, export batch and count.
 */
import assert from "node:assert/strict";
import { atInstant } from "../../../server/db/clock.ts";
import { seenSince } from "../../../server/db/rules/device_view.ts";
import type { Device, DeviceFilter, DeviceSeen } from "../../../shared/schemas/device.ts";
import { DEVICE_SEEN, DEVICE_SORTS } from "../../../shared/schemas/device.ts";
import { addProductType, checkin, type ConformanceOptions, INFO, PRODUCT, storeTest } from "../fixtures.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Does a device's exact last check-in match the filter (the oracle the views are checked against)? */
function seenMatches(seen: DeviceSeen, at: string | null): boolean {
  const since = seenSince(seen);
  if (since === null) return at === null;
  if (at === null) return false;
  return seen === "stale" ? at < since : at >= since;
}

export function lastSeenHourCases(engine: string, options: ConformanceOptions) {
  storeTest(
    engine,
    options,
    "last seen: the hour a seen bound falls in is decided by the exact time",
    async (stores) => {
      const { devices } = stores;
      const now = Date.now();
      const iso = (t: number) => new Date(t).toISOString();
      // Two minutes either side of each bound (the test takes seconds), and two just now, a millisecond apart.
      const times: Record<string, number> = {
        in24: now - 24 * HOUR + 2 * MINUTE,
        out24: now - 24 * HOUR - 2 * MINUTE,
        in7: now - 7 * 24 * HOUR + 2 * MINUTE,
        out7: now - 7 * 24 * HOUR - 2 * MINUTE,
        tieA: now - 2,
        tieB: now - 1,
        moved: now - 25 * HOUR,
      };
      for (const [id, t] of Object.entries(times)) await atInstant(iso(t), () => checkin(stores, id));
      // A quiet check-in now, written by the batch: its hour moves from a day ago to now.
      await checkin(stores, "moved");
      await stores.devices.preauthorize("never-seen");
      const pt = await addProductType(stores, "Seen type");
      for (const id of ["in24", "out24", "tieA"]) await devices.patch(id, { productTypeId: pt._id });
      await checkin(stores, "in7", { ...INFO, app: "9.9.9" });

      const all = (await devices.list(0, 100)).data;
      const byId = new Map(all.map((d) => [d.deviceId, d]));
      for (const [id, t] of Object.entries(times)) {
        if (id !== "moved" && id !== "in7") assert.equal(byId.get(id)!.lastLoggedIn, iso(t), `${id}'s exact time`);
      }
      assert.ok(byId.get("moved")!.lastLoggedIn! > iso(now), "the batch's time is shown");

      const filters: DeviceFilter[] = [{}, { productTypeId: pt._id }, { app: INFO.app! }, { admission: "accepted" }];
      const matches = (f: DeviceFilter, d: Device) =>
        (f.productTypeId === undefined || d.productTypeId === f.productTypeId) &&
        (f.app === undefined || d.versionInfo?.app === f.app) &&
        (f.admission === undefined || d.admission === f.admission) &&
        (f.seen === undefined || seenMatches(f.seen, d.lastLoggedIn));
      for (const seen of [undefined, ...DEVICE_SEEN]) {
        for (const base of filters) {
          const filter = { ...base, seen };
          const expected = all.filter((d) => matches(filter, d));
          for (const sort of DEVICE_SORTS) {
            for (const order of ["asc", "desc"] as const) {
              const view = { filter, sort, order };
              const what = JSON.stringify(view);
              const page = await devices.view(view, 0, 50, PRODUCT);
              assert.deepEqual(
                page.data.map((d) => d.deviceId).sort(),
                expected.map((d) => d.deviceId).sort(),
                what,
              );
              assert.equal(page.total, expected.length, `${what}: total`);
              const batched: string[] = [];
              for (let after = null, first = true; first || after !== null; first = false) {
                const b = await devices.batch(view, after, 2, PRODUCT);
                batched.push(...b.data.map((d) => d.deviceId));
                after = b.next;
              }
              assert.deepEqual(batched, page.data.map((d) => d.deviceId), `${what}: export batches`);
              if (sort === "lastLoggedIn") {
                // Exact order, ties (none here) by device id; devices never seen first ascending, last descending.
                const key = (d: Device) => d.lastLoggedIn ?? "";
                const sorted = [...expected].sort((a, b) =>
                  key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.deviceId < b.deviceId ? -1 : 1
                );
                if (order === "desc") sorted.reverse();
                assert.deepEqual(page.data.map((d) => d.deviceId), sorted.map((d) => d.deviceId), `${what}: order`);
              }
            }
          }
        }
      }

      const counts = async () => (await devices.overview(PRODUCT)).devices;
      const expect = (seen: DeviceSeen) => all.filter((d) => seenMatches(seen, d.lastLoggedIn)).length;
      const overview = await counts();
      assert.deepEqual(
        { seen24h: overview.seen24h, seen7d: overview.seen7d, stale: overview.stale, never: overview.never },
        { seen24h: expect("24h"), seen7d: expect("7d"), stale: expect("stale"), never: expect("never") },
      );
      // A deleted device's exact time goes with it (the boundary hour is counted from it).
      await devices.remove("in24");
      assert.equal((await counts()).seen24h, expect("24h") - 1);
      assert.equal(
        (await devices.view({ filter: { seen: "24h" }, sort: "lastLoggedIn", order: "asc" }, 0, 50, PRODUCT))
          .total,
        expect("24h") - 1,
      );
    },
  );
}
