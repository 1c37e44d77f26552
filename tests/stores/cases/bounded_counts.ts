import { withClock } from "../../../testing/clock.ts";
import assert from "node:assert/strict";
import { productTypeOrder } from "../../../server/db/rules/product_type_groups.ts";
import { VIEW_COUNT_LIMIT } from "../../../server/db/rules/device_view.ts";
import type { DeviceFilter } from "../../../shared/schemas/device.ts";
import { addProductType, checkin, PRODUCT, storeTest } from "../fixtures.ts";

/**
 * `sort=productType` under a filter: the groups are counted only as far as the page needs plus VIEW_COUNT_LIMIT
 * (rules/product_type_groups.ts's GroupWalk). Every page of several filters, both directions and three page sizes is checked
 * against a brute-force computation over a model of the fleet: groups that straddle pages, an empty group in the
 * middle, totals exact or a lower bound, pages beyond the end.
 */
export function boundedCountCases(engine: string, options: Parameters<typeof storeTest>[1]) {
  storeTest(
    engine,
    options,
    "sort=productType under a filter: bounded counts, brute-force checked",
    async (stores, t) => {
      await stores.deviceTypes.ensure(PRODUCT);
      // Names out of creation order, so the name order is not the ids' order.
      const types = [
        await addProductType(stores, "Delta"),
        await addProductType(stores, "Alpha"),
        await addProductType(stores, "Charlie"),
        await addProductType(stores, "Beta"),
      ];
      const byName = Object.fromEntries(types.map((p) => [p.name, p._id]));
      // 600 devices: by i % 5 none, Alpha, Beta, Charlie, Delta. Beta's devices alone run app 3.0, so every app filter
      // below leaves Beta, a group in the middle of the order, empty.
      const N = 600;
      const model: { id: string; pt: string | null; app: string; os: string }[] = [];
      for (let i = 0; i < N; i++) {
        const id = `w${String((i * 7919) % N).padStart(4, "0")}`; // ids not in the groups' order
        const pt = [null, byName.Alpha, byName.Beta, byName.Charlie, byName.Delta][i % 5];
        const app = i % 5 === 2 ? "3.0" : i % 3 === 0 ? "1.0" : "2.0";
        const os = i % 2 ? "os-b" : "os-a";
        await checkin(stores, id, { app, os, channels: [] });
        model.push({ id, pt, app, os });
      }
      for (const [name, id] of Object.entries(byName)) {
        const ids = model.filter((d) => d.pt === id).map((d) => d.id);
        assert.equal(
          (await stores.devices.bulk({ deviceIds: ids }, { productTypeId: id }, PRODUCT)).updated,
          N / 5,
          name,
        );
      }

      const filters: {
        name: string;
        filter: DeviceFilter;
        match: (d: (typeof model)[number]) => boolean;
        kept: boolean;
      }[] = [
        // one filter with an exact count of its own: exact totals whatever the walk counted
        { name: "app 2.0", filter: { app: "2.0" }, match: (d) => d.app === "2.0", kept: true },
        { name: "seen 24h", filter: { seen: "24h" }, match: () => true, kept: true },
        { name: "firmware default", filter: { firmware: "default" }, match: () => true, kept: true },
        // the others: counted to VIEW_COUNT_LIMIT past the page
        { name: "q", filter: { q: "w" }, match: () => true, kept: false },
        { name: "os-b", filter: { os: "os-b" }, match: (d) => d.os === "os-b", kept: false },
        {
          name: "app 2.0 + q",
          filter: { app: "2.0", q: "w" },
          match: (d) => d.app === "2.0",
          kept: false,
        },
        {
          name: "app 1.0 + os-a",
          filter: { app: "1.0", os: "os-a" },
          match: (d) => d.app === "1.0" && d.os === "os-a",
          kept: false,
        },
        { name: "q w01", filter: { q: "w01" }, match: (d) => d.id.startsWith("w01"), kept: false },
        { name: "nothing", filter: { app: "9.9", os: "os-a" }, match: () => false, kept: false },
      ];

      for (const order of ["asc", "desc"] as const) {
        const groups = productTypeOrder(types.map((p) => ({ id: p._id, name: p.name })), order);
        const sorted = (ds: typeof model) =>
          groups.flatMap((g) =>
            ds.filter((d) => d.pt === g).map((d) => d.id).sort((a, b) =>
              order === "asc" ? (a < b ? -1 : 1) : (a < b ? 1 : -1)
            )
          );
        for (const f of filters) {
          await t.step(`${f.name}, ${order}`, async () => {
            const all = sorted(model.filter(f.match));
            for (const size of [7, 25, 100]) {
              const last = Math.ceil(all.length / size);
              const pages = size === 7 ? [0, 1, 2, 3, 11, 12, 13, 35, 36, last - 1, last, last + 3] : [
                ...Array.from({ length: last + 1 }, (_, p) => p),
                last + 5,
              ];
              for (const p of pages.filter((p) => p >= 0)) {
                const offset = p * size;
                const got = await stores.devices.view(
                  { filter: f.filter, sort: "productType", order },
                  p,
                  size,
                  PRODUCT,
                );
                const need = offset + size + VIEW_COUNT_LIMIT;
                const want = all.length < need || f.kept
                  ? { total: all.length, exact: true }
                  : { total: need, exact: false };
                const where = `${f.name} ${order}, page ${p} of ${size}`;
                assert.deepEqual(got.data.map((d) => d.deviceId), all.slice(offset, offset + size), where);
                assert.deepEqual({ total: got.total, exact: got.exact }, want, where);
              }
            }
          });
        }
      }

      await t.step("unfiltered and one product type alone: the kept counts, exact", async () => {
        const alpha = await stores.devices.view(
          { filter: { productTypeId: byName.Alpha }, sort: "productType", order: "asc" },
          0,
          10,
          PRODUCT,
        );
        assert.deepEqual([alpha.data.length, alpha.total, alpha.exact], [10, N / 5, true]);
        const none = await stores.devices.view(
          { filter: { productTypeId: "none" }, sort: "productType", order: "desc" },
          11,
          10,
          PRODUCT,
        );
        assert.deepEqual([none.data.length, none.total, none.exact], [10, N / 5, true]);
        const every = await stores.devices.view({ filter: {}, sort: "productType", order: "asc" }, 3, 25, PRODUCT);
        assert.deepEqual([every.data.length, every.total, every.exact], [25, N, true]);
      });

      await t.step("export pages without a total (count: false) place the page the same way", async () => {
        const view = { filter: { q: "w" }, sort: "productType", order: "asc" } as const;
        const counted = await stores.devices.view(view, 30, 10, PRODUCT);
        const uncounted = await stores.devices.view(view, 30, 10, PRODUCT, { count: false });
        assert.deepEqual(uncounted.data.map((d) => d.deviceId), counted.data.map((d) => d.deviceId));
        assert.equal(uncounted.total, -1);
      });
    },
  );

  storeTest(engine, options, "pruneCounts: every count a view or the overview answers stays", async (stores) => {
    await stores.deviceTypes.ensure(PRODUCT);
    const DAY = 24 * 3600_000;
    // check-ins 30 and 12 days ago that moved on (empty old hours on PostgreSQL), one that stayed 20 days ago
    for (const [id, ago, again] of [["a", 30, true], ["b", 12, true], ["c", 20, false], ["d", 0, false]] as const) {
      await withClock(-ago * DAY, () => checkin(stores, id));
      if (again) await checkin(stores, id);
    }
    await stores.devices.preauthorize("e");
    const counts = async () => ({
      overview: (await stores.devices.overview(PRODUCT)).devices,
      totals: await Promise.all(
        (["24h", "7d", "stale", "never"] as const).map(async (seen) =>
          (await stores.devices.view({ filter: { seen }, sort: "deviceId", order: "asc" }, 0, 10, PRODUCT)).total
        ),
      ),
    });
    const before = await counts();
    assert.deepEqual(before, {
      overview: { total: 5, seen24h: 3, seen7d: 3, stale: 1, never: 1, pending: 0 },
      totals: [3, 3, 1, 1],
    });
    assert.ok(await stores.devices.pruneCounts() >= 0);
    assert.deepEqual(await counts(), before);
    assert.equal(await stores.devices.pruneCounts(), 0, "nothing left the second time");
  });
}
