import { withClock } from "../../../testing/clock.ts";
import assert from "node:assert/strict";
import { InvalidError } from "../../../server/db/errors.ts";
import { type DeviceView, VIEW_COUNT_LIMIT } from "../../../server/db/rules/device_view.ts";
import { firmwareInEffect } from "../../../server/db/rules/firmware_in_effect.ts";
import { type ViewCursor } from "../../../server/db/rules/view_cursor.ts";
import type { DeviceFilter, DeviceSort } from "../../../shared/schemas/device.ts";
import {
  addFirmware,
  addProductType,
  addTreatments,
  checkin,
  type ConformanceOptions,
  MANAGED_TYPE,
  PRODUCT,
  rejectsWith,
  storeTest,
  tick,
} from "../fixtures.ts";

export function deviceViewCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "device views: filters, sorts, bulk changes and the overview", async (stores, t) => {
    const { devices } = stores;
    await stores.deviceTypes.ensure(PRODUCT);
    const managed = (await stores.deviceTypes.list()).find((d) => d.name === MANAGED_TYPE)!;
    const fwDefault = await addFirmware(stores, "default.xz");
    const fwPinned = await addFirmware(stores, "pinned.xz");
    await stores.deviceTypes.setDefaultFirmware(managed._id, fwDefault._id);
    const zeta = await addProductType(stores, "Zeta", [["z-opt", false, []]]);
    const alpha = await addProductType(stores, "Alpha");
    const tr = await addTreatments(stores, ["T1", "T2"]);
    // d0..d5, checked in in this order, with apps 2.0 / 1.0 / none
    const apps = ["2.0", "1.0", null, "1.0", "2.0", "1.0"];
    for (let i = 0; i < apps.length; i++) {
      await checkin(stores, `d${i}`, { app: apps[i], os: i % 2 ? "os-b" : "os-a", channels: [] });
      await tick();
    }
    await devices.patch("d0", { productTypeId: zeta._id, moduleIds: [zeta.modules[0]._id] });
    await devices.patch("d1", { productTypeId: alpha._id, firmware: fwPinned._id });
    await devices.patch("d2", { productTypeId: zeta._id, firmware: fwDefault._id });
    await devices.patch("d3", { productTypeId: alpha._id });

    const ids = async (filter: DeviceFilter, sort: DeviceSort = "deviceId", order: "asc" | "desc" = "asc") =>
      (await devices.view({ filter, sort, order }, 0, 100, PRODUCT)).data.map((d) => d.deviceId);

    await t.step("firmware in effect: custom, else the default", () => {
      assert.equal(firmwareInEffect("a", "b"), "a");
      assert.equal(firmwareInEffect(null, "b"), "b");
      assert.equal(firmwareInEffect(null, null), null);
    });

    await t.step("filters, each and combined", async () => {
      assert.deepEqual(await ids({}), ["d0", "d1", "d2", "d3", "d4", "d5"]);
      assert.deepEqual(await ids({ productTypeId: alpha._id }), ["d1", "d3"]);
      assert.deepEqual(await ids({ productTypeId: "none" }), ["d4", "d5"]);
      assert.deepEqual(await ids({ firmware: "custom" }), ["d1", "d2"]);
      assert.deepEqual(await ids({ firmware: "default" }), ["d0", "d3", "d4", "d5"]);
      // the default firmware is in effect where none is set and where it is set as custom
      assert.deepEqual(await ids({ firmware: fwDefault._id }), ["d0", "d2", "d3", "d4", "d5"]);
      assert.deepEqual(await ids({ firmware: fwPinned._id }), ["d1"]);
      assert.deepEqual(await ids({ firmware: "nope" }), []);
      assert.deepEqual(await ids({ app: "1.0" }), ["d1", "d3", "d5"]);
      assert.deepEqual(await ids({ os: "os-a" }), ["d0", "d2", "d4"]);
      assert.deepEqual(await ids({ seen: "24h" }), ["d0", "d1", "d2", "d3", "d4", "d5"]);
      assert.deepEqual(await ids({ seen: "7d" }), ["d0", "d1", "d2", "d3", "d4", "d5"]);
      assert.deepEqual(await ids({ seen: "never" }), []);
      assert.deepEqual(await ids({ app: "1.0", productTypeId: alpha._id, firmware: "default" }), ["d3"]);
      assert.deepEqual(await ids({ q: "D1" }), ["d1"]);
    });

    await t.step("the firmware filters, their totals and the overview on the kept keys (synced)", async () => {
      assert.equal(await devices.syncFirmwareKeys(PRODUCT), true);
      const counted = async (firmware: string, sort: DeviceSort = "lastLoggedIn") => {
        const p = await devices.view({ filter: { firmware }, sort, order: "asc" }, 0, 2, PRODUCT);
        return [p.total, p.exact];
      };
      assert.deepEqual(await ids({ firmware: "custom" }), ["d1", "d2"]);
      assert.deepEqual(await ids({ firmware: "default" }, "app"), ["d3", "d5", "d0", "d4"]);
      assert.deepEqual(await ids({ firmware: fwDefault._id }, "createdAt", "desc"), ["d5", "d4", "d3", "d2", "d0"]);
      assert.deepEqual(await ids({ firmware: fwPinned._id }), ["d1"]);
      assert.deepEqual(await ids({ firmware: "nope" }), []);
      assert.deepEqual(await ids({ app: "1.0", productTypeId: alpha._id, firmware: "default" }), ["d3"]);
      // exact totals from the kept counts (a page of 2 of more)
      assert.deepEqual(await counted("custom"), [2, true]);
      assert.deepEqual(await counted("default"), [4, true]);
      assert.deepEqual(await counted(fwDefault._id), [5, true]);
      assert.deepEqual(await counted(fwPinned._id), [1, true]);
      assert.deepEqual((await devices.overview(PRODUCT)).firmwares, [
        { _id: fwDefault._id, name: "default.xz", devices: 5 },
        { _id: fwPinned._id, name: "pinned.xz", devices: 1 },
      ]);
    });

    await t.step("sorts, ties broken by deviceId in the same direction", async () => {
      assert.deepEqual(await ids({}, "deviceId", "desc"), ["d5", "d4", "d3", "d2", "d1", "d0"]);
      assert.deepEqual(await ids({}, "lastLoggedIn"), ["d0", "d1", "d2", "d3", "d4", "d5"]);
      assert.deepEqual(await ids({}, "createdAt", "desc"), ["d5", "d4", "d3", "d2", "d1", "d0"]);
      assert.deepEqual(await ids({}, "app"), ["d2", "d1", "d3", "d5", "d0", "d4"]);
      assert.deepEqual(await ids({}, "app", "desc"), ["d4", "d0", "d5", "d3", "d1", "d2"]);
      // none first, then by name: Alpha (d1, d3), Zeta (d0, d2)
      assert.deepEqual(await ids({}, "productType"), ["d4", "d5", "d1", "d3", "d0", "d2"]);
      assert.deepEqual(await ids({}, "productType", "desc"), ["d2", "d0", "d3", "d1", "d5", "d4"]);
      assert.deepEqual(await ids({ app: "1.0" }, "productType"), ["d5", "d1", "d3"]);
      assert.deepEqual(await ids({}, "updatedAt"), ["d4", "d5", "d0", "d1", "d2", "d3"]);
    });

    await t.step("pages of every sort, with the total", async () => {
      for (const sort of ["deviceId", "productType", "app", "lastLoggedIn"] as const) {
        const view: DeviceView = { filter: {}, sort, order: "desc" };
        const all = (await devices.view(view, 0, 100, PRODUCT)).data.map((d) => d.deviceId);
        const pages: string[] = [];
        for (let p = 0; p < 3; p++) {
          const page = await devices.view(view, p, 2, PRODUCT);
          assert.equal(page.total, 6, sort);
          pages.push(...page.data.map((d) => d.deviceId));
        }
        assert.deepEqual(pages, all, sort);
        assert.deepEqual(await devices.view(view, 7, 2, PRODUCT), { data: [], total: 6, exact: true });
      }
      const filtered = await devices.view({ filter: { app: "1.0" }, sort: "app", order: "asc" }, 0, 2, PRODUCT);
      assert.equal(filtered.total, 3);
      // combined filters count exactly while the matches run out within VIEW_COUNT_LIMIT past the page
      const combined = await devices.view(
        { filter: { app: "1.0", os: "os-b" }, sort: "app", order: "asc" },
        0,
        2,
        PRODUCT,
      );
      assert.deepEqual([combined.total, combined.exact], [3, true]);
      const beyond = await devices.view(
        { filter: { app: "1.0", os: "os-b" }, sort: "createdAt", order: "asc" },
        5,
        2,
        PRODUCT,
      );
      assert.deepEqual(beyond, { data: [], total: 3, exact: true });
    });

    await t.step("export batches (keyset): every device once, in the view's order, ties included", async () => {
      for (const sort of ["deviceId", "productType", "app", "lastLoggedIn", "updatedAt", "createdAt"] as const) {
        for (const order of ["asc", "desc"] as const) {
          for (
            const filter of [{}, { app: "1.0" }, { firmware: "default" }, { productTypeId: "none" }] as DeviceFilter[]
          ) {
            const want = await ids(filter, sort, order);
            for (const size of [1, 2, 4, 100]) {
              const got: string[] = [];
              let after: ViewCursor | null = null;
              for (let i = 0; i < 20; i++) {
                const b: { data: { deviceId: string }[]; next: ViewCursor | null } = await devices.batch(
                  { filter, sort, order },
                  after,
                  size,
                  PRODUCT,
                );
                got.push(...b.data.map((d) => d.deviceId));
                assert.ok(b.data.length <= size);
                if (b.next === null) break;
                after = b.next;
              }
              assert.deepEqual(got, want, `${sort} ${order} ${JSON.stringify(filter)} by ${size}`);
            }
          }
        }
      }
    });

    await t.step("the overview: counts by check-in, product type, firmware in effect and app", async () => {
      const o = await devices.overview(PRODUCT);
      assert.deepEqual(o.devices, { total: 6, seen24h: 6, seen7d: 6, stale: 0, never: 0, pending: 0 });
      assert.deepEqual(o.productTypes, [
        { _id: null, name: null, devices: 2 },
        { _id: alpha._id, name: "Alpha", devices: 2 },
        { _id: zeta._id, name: "Zeta", devices: 2 },
      ]);
      assert.deepEqual(o.firmwares, [
        { _id: fwDefault._id, name: "default.xz", devices: 5 },
        { _id: fwPinned._id, name: "pinned.xz", devices: 1 },
      ]);
      assert.deepEqual(o.apps, [
        { version: "1.0", devices: 3 },
        { version: "2.0", devices: 2 },
        { version: null, devices: 1 },
      ]);
    });

    await t.step("bulk: any failure changes none", async () => {
      const before = await devices.view({ filter: {}, sort: "deviceId", order: "asc" }, 0, 100, PRODUCT);
      await rejectsWith(
        devices.bulk({ deviceIds: ["d0", "nope"] }, { firmware: null }, PRODUCT),
        InvalidError,
        "deviceIds: no device with deviceId nope.",
      );
      await rejectsWith(
        devices.bulk({ deviceIds: ["d0"] }, { productTypeId: "pt-x" }, PRODUCT),
        InvalidError,
        "productTypeId: no product type with id pt-x.",
      );
      await rejectsWith(
        devices.bulk({ filter: {} }, { firmware: "fw-x" }, PRODUCT),
        InvalidError,
        "firmware: no firmware with id fw-x.",
      );
      await rejectsWith(
        devices.bulk({ filter: {} }, { additionalTreatmentIds: [tr.T1, "t-x"] }, PRODUCT),
        InvalidError,
        "additionalTreatmentIds: no treatment with id t-x.",
      );
      assert.deepEqual(await devices.view({ filter: {}, sort: "deviceId", order: "asc" }, 0, 100, PRODUCT), before);
    });

    await t.step("bulk by ids and by filter: the rules of patch, new etags", async () => {
      const d0 = (await devices.get("d0"))!;
      await tick(); // a later updatedAt: the bulk may run in the millisecond d0 was last written
      const r = await devices.bulk(
        { deviceIds: ["d0", "d3"] },
        { productTypeId: alpha._id, additionalTreatmentIds: [tr.T2, tr.T1] },
        PRODUCT,
      );
      assert.deepEqual(r, { updated: 2, deviceIds: ["d0", "d3"] });
      // One audit entry per device, in the bulk's transaction; the refused bulks above left none.
      const entries = (await stores.audit.list({ action: "device.bulk_update" }, 0, 100)).data;
      assert.deepEqual(entries.map((e) => e.target?.id).sort(), ["d0", "d3"]);
      assert.deepEqual(entries[0].details, {
        changes: { productTypeId: alpha._id, additionalTreatmentIds: [tr.T2, tr.T1] },
        devices: 2,
      });
      assert.equal((await stores.audit.verify()).firstBad, null);
      const after0 = (await devices.get("d0"))!;
      assert.equal(after0.productTypeId, alpha._id);
      assert.deepEqual(after0.moduleIds, [], "a product type change clears the modules");
      assert.deepEqual(after0.additionalTreatmentIds, [tr.T2, tr.T1]);
      assert.notEqual(after0.etag, d0.etag);
      assert.ok(after0.updatedAt > d0.updatedAt);
      const byFilter = await devices.bulk({ filter: { productTypeId: "none" } }, { firmware: fwPinned._id }, PRODUCT);
      assert.deepEqual(byFilter, { updated: 2, deviceIds: ["d4", "d5"] });
      assert.deepEqual(await ids({ firmware: fwPinned._id }), ["d1", "d4", "d5"]);
      assert.deepEqual(await devices.bulk({ filter: { q: "zzz" } }, { firmware: null }, PRODUCT), {
        updated: 0,
        deviceIds: [],
      });
      await devices.bulk({ filter: { firmware: "custom" } }, { firmware: null }, PRODUCT);
      assert.deepEqual(await ids({ firmware: "custom" }), []);
    });

    await t.step(
      "the overview's counts follow every kind of write (bulk, patch, check-in, deletes, cascades)",
      async () => {
        const counted = async () => {
          const o = await devices.overview(PRODUCT);
          return {
            types: o.productTypes.map((x) => [x.name, x.devices] as const),
            firmwares: o.firmwares,
            apps: o.apps,
          };
        };
        // The same numbers as counting the devices themselves.
        const truth = async () => {
          const all = (await devices.view({ filter: {}, sort: "deviceId", order: "asc" }, 0, 100, PRODUCT)).data;
          const by = (f: (d: (typeof all)[number]) => string | null) => {
            const m = new Map<string | null, number>();
            for (const d of all) m.set(f(d), (m.get(f(d)) ?? 0) + 1);
            return m;
          };
          return { types: by((d) => d.productTypeId), apps: by((d) => d.versionInfo?.app ?? null), n: all.length };
        };
        const check = async () => {
          const c = await counted();
          const want = await truth();
          assert.deepEqual(
            new Map(c.apps.map((a) => [a.version, a.devices])),
            want.apps,
          );
          const names = new Map([[alpha._id, "Alpha"], [zeta._id, "Zeta"]]);
          assert.deepEqual(
            new Map(c.types.filter(([, n]) => n > 0)),
            new Map([...want.types].map(([k, n]) => [k === null ? null : names.get(k) ?? k, n])),
          );
          assert.equal(c.firmwares.reduce((s, f) => s + f.devices, 0), want.n);
        };
        await check();
        await devices.patch("d1", { productTypeId: null, firmware: fwPinned._id });
        await check();
        await checkin(stores, "d1", { app: "9.9", os: null, channels: [] });
        await checkin(stores, "d9", { app: null, os: null, channels: [] });
        await check();
        await devices.remove("d2");
        await check();
        await stores.productTypes.remove(zeta._id);
        await check();
        const o = await devices.overview(PRODUCT);
        assert.deepEqual(o.firmwares.find((f) => f._id === fwPinned._id)?.devices, 1);
      },
    );
  });

  storeTest(
    engine,
    options,
    "device views: totals exact or counted past the page, check-ins by hour",
    async (stores, t) => {
      const { devices } = stores;
      await stores.deviceTypes.ensure(PRODUCT);
      const n = VIEW_COUNT_LIMIT + 40;
      for (let i = 0; i < n; i++) {
        await checkin(stores, `c${String(i).padStart(4, "0")}`, {
          app: "9.9",
          os: i % 2 ? "os-b" : "os-a",
          channels: [],
        });
      }
      const page = (filter: DeviceFilter, p: number, size: number, sort: DeviceSort = "createdAt") =>
        devices.view({ filter, sort, order: "asc" }, p, size, PRODUCT);

      await t.step("one kept filter: exact, whatever it matches", async () => {
        const r = await page({ app: "9.9" }, 0, 10);
        assert.deepEqual([r.data.length, r.total, r.exact], [10, n, true]);
        const s = await page({ seen: "24h" }, 3, 10, "deviceId");
        assert.deepEqual([s.total, s.exact], [n, true]);
      });

      await t.step("a combination: counted to VIEW_COUNT_LIMIT past the page, a lower bound beyond", async () => {
        const r = await page({ app: "9.9", os: "os-a" }, 0, 10);
        const all = (await page({ app: "9.9", os: "os-a" }, 0, 100, "deviceId")).total;
        assert.equal(n / 2, VIEW_COUNT_LIMIT / 2 + 20);
        // n/2 = 270 match: within 10 + VIEW_COUNT_LIMIT, so exact
        assert.deepEqual([r.total, r.exact, all], [n / 2, true, n / 2]);
        const wide = await page({ app: "9.9", q: "c" }, 0, 10);
        assert.deepEqual([wide.data.length, wide.total, wide.exact], [10, 10 + VIEW_COUNT_LIMIT, false]);
        const next = await page({ app: "9.9", q: "c" }, 2, 10);
        assert.deepEqual([next.total, next.exact], [30 + VIEW_COUNT_LIMIT, false]);
        const last = await page({ app: "9.9", q: "c" }, Math.floor((n - 1) / 10), 10);
        assert.deepEqual([last.data.length, last.total, last.exact], [n % 10 || 10, n, true]);
        assert.deepEqual(await page({ app: "9.9", q: "c" }, 1000, 10), { data: [], total: n, exact: true });
        // the pages walk every match once, in order
        const ids: string[] = [];
        for (let p = 0; p * 100 < n; p++) {
          ids.push(...(await page({ app: "9.9", q: "c" }, p, 100)).data.map((d) => d.deviceId));
        }
        assert.equal(new Set(ids).size, n);
      });

      await t.step("export batches across many ties: neither lost nor repeated", async () => {
        for (
          const [sort, order] of [["app", "asc"], ["app", "desc"], ["createdAt", "desc"], [
            "productType",
            "asc",
          ]] as const
        ) {
          const seen = new Set<string>();
          let after: ViewCursor | null = null;
          let batches = 0;
          do {
            const b: { data: { deviceId: string }[]; next: ViewCursor | null } = await devices.batch(
              { filter: { app: "9.9" }, sort, order },
              after,
              64,
              PRODUCT,
            );
            for (const d of b.data) {
              assert.ok(!seen.has(d.deviceId), `${d.deviceId} twice (${sort} ${order})`);
              seen.add(d.deviceId);
            }
            after = b.next;
            batches++;
          } while (after !== null);
          assert.equal(seen.size, n, `${sort} ${order}`);
          assert.equal(batches, Math.ceil((n + 1) / 64));
        }
      });

      await t.step("the seen counts follow check-ins across hours (filter and overview agree)", async () => {
        const HOUR = 3600_000;
        const ago = [0.2, 23.5, 23.99, 24.01, 24.5, 25, 6 * 24 + 23.9, 7 * 24 + 0.1, 30 * 24];
        for (let i = 0; i < ago.length; i++) await withClock(-ago[i] * HOUR, () => checkin(stores, `s${i}`));
        // and one device checks in again, moving from an old hour to now
        await withClock(-40 * HOUR, () => checkin(stores, "s-moved"));
        await checkin(stores, "s-moved");
        const want24 = n + 1 + ago.filter((h) => h < 24).length;
        const want7 = n + 1 + ago.filter((h) => h < 7 * 24).length;
        const o = await devices.overview(PRODUCT);
        const total = n + ago.length + 1;
        const stale = total - want7;
        assert.deepEqual(o.devices, { total, seen24h: want24, seen7d: want7, stale, never: 0, pending: 0 });
        for (const [seen, want] of [["24h", want24], ["7d", want7], ["stale", stale]] as const) {
          const all = await page({ seen }, 0, 100, "deviceId");
          assert.deepEqual([all.total, all.exact], [want, true], seen);
        }
      });
    },
  );

  storeTest(
    engine,
    options,
    "device views: the firmware in effect honours rollouts, as config resolves it",
    async (stores, t) => {
      const { devices } = stores;
      await stores.deviceTypes.ensure(PRODUCT);
      const managed = (await stores.deviceTypes.list()).find((d) => d.name === MANAGED_TYPE)!;
      const fwDefault = await addFirmware(stores, "default.xz");
      const fwRollout = await addFirmware(stores, "rollout.xz");
      const fwPinned = await addFirmware(stores, "pinned.xz");
      await stores.deviceTypes.setDefaultFirmware(managed._id, fwDefault._id);
      const alpha = await addProductType(stores, "Alpha");
      const all = Array.from({ length: 60 }, (_, i) => `r${String(i).padStart(3, "0")}`);
      for (const id of all) await checkin(stores, id);
      for (const id of all.slice(0, 30)) await devices.patch(id, { productTypeId: alpha._id });
      await devices.patch("r059", { firmware: fwPinned._id });
      const by = { email: "op@example.com" };
      const act = (id: string, action: "start" | "advance" | "cancel" | "promote") =>
        stores.rollouts.act(id, action, by, PRODUCT);
      const firmwares = [fwDefault, fwRollout, fwPinned];
      let currentDefault = fwDefault._id;

      // The firmware each device's configuration names, against the filter and the overview: as found (the kept keys
      // may be behind: decided device by device), then with the keys synced (the kept columns).
      const agree = async (what: string) => {
        await check(what);
        assert.equal(await devices.syncFirmwareKeys(PRODUCT), true, `${what}: keys synced`);
        return await check(`${what}, keys kept`);
      };
      const check = async (what: string) => {
        const offered = new Map<string | null, string[]>();
        for (const id of all) {
          const fw = (await stores.deviceApi.config(id, PRODUCT))!.firmware?._id ?? null;
          offered.set(fw, [...(offered.get(fw) ?? []), id]);
        }
        for (const fw of firmwares) {
          const listed =
            (await devices.view({ filter: { firmware: fw._id }, sort: "deviceId", order: "asc" }, 0, 100, PRODUCT))
              .data.map((d) => d.deviceId);
          assert.deepEqual(listed, offered.get(fw._id) ?? [], `${what}: firmware=${fw.name}`);
        }
        const onDefault =
          (await devices.view({ filter: { firmware: "default" }, sort: "deviceId", order: "asc" }, 0, 100, PRODUCT))
            .data.map((d) => d.deviceId);
        // "default": no custom firmware and no rollout deciding: the devices offered the default
        const custom = new Set(
          (await devices.view({ filter: { firmware: "custom" }, sort: "deviceId", order: "asc" }, 0, 100, PRODUCT))
            .data.map((d) => d.deviceId),
        );
        const held = new Set<string>();
        for (const [fw, ids] of offered) if (fw !== currentDefault) { for (const id of ids) held.add(id); }
        const decided = onDefault.filter((id) => custom.has(id) || held.has(id));
        assert.deepEqual(decided, [], `${what}: firmware=default lists devices offered another firmware`);
        assert.deepEqual(
          onDefault,
          (offered.get(currentDefault) ?? []).filter((id) => !custom.has(id)),
          `${what}: default`,
        );
        const o = await devices.overview(PRODUCT);
        assert.deepEqual(
          new Map(o.firmwares.map((f) => [f._id, f.devices])),
          new Map([...offered].map(([fw, ids]) => [fw, ids.length])),
          `${what}: overview`,
        );
        // the same views in export batches
        const csv: string[] = [];
        for (let after: ViewCursor | null = null;;) {
          const b: { data: { deviceId: string }[]; next: ViewCursor | null } = await devices.batch(
            { filter: { firmware: fwRollout._id }, sort: "lastLoggedIn", order: "desc" },
            after,
            7,
            PRODUCT,
          );
          csv.push(...b.data.map((d) => d.deviceId));
          if (b.next === null) break;
          after = b.next;
        }
        assert.deepEqual(csv.sort(), offered.get(fwRollout._id) ?? [], `${what}: batches`);
        return offered;
      };

      const scoped = await stores.rollouts.create(
        {
          name: "to Alpha",
          firmwareId: fwRollout._id,
          productTypeId: alpha._id,
          stages: [30, 60, 100],
          autoAdvance: false,
        },
        by,
      );
      await t.step("a draft holds nothing; a started rollout holds its first stage", async () => {
        await agree("draft");
        await act(scoped._id, "start");
        const offered = await agree("stage 1");
        assert.ok((offered.get(fwRollout._id) ?? []).length > 0, "some devices in stage 1");
      });
      await t.step("advance, then a custom firmware on a device in the stage", async () => {
        await act(scoped._id, "advance");
        const offered = await agree("stage 2");
        const inStage = offered.get(fwRollout._id)!;
        await devices.patch(inStage[0], { firmware: fwPinned._id });
        await agree("pinned in stage");
        await devices.bulk({ deviceIds: [inStage[1]] }, { firmware: fwPinned._id }, PRODUCT);
        await agree("pinned by bulk");
      });
      await t.step("cancel: only the devices that installed it keep it", async () => {
        const inStage = (await agree("before cancel")).get(fwRollout._id)!;
        await stores.deviceApi.status(
          inStage[0],
          { firmwareId: fwRollout._id, state: "installed", progress: 100 },
          PRODUCT,
        );
        await act(scoped._id, "cancel");
        const offered = await agree("cancelled");
        assert.deepEqual(offered.get(fwRollout._id), [inStage[0]]);
      });
      await t.step("its product type deleted, then its firmware: the rollout holds nobody", async () => {
        await stores.productTypes.remove(alpha._id);
        const offered = await agree("product type deleted");
        assert.equal(offered.get(fwRollout._id), undefined);
        await stores.firmwares.remove(fwRollout._id);
        await agree("firmware deleted");
      });
      await t.step("a rollout to every device, finished and promoted: the plain condition again", async () => {
        const fwNext = await addFirmware(stores, "next.xz");
        firmwares.push(fwNext);
        const everyone = await stores.rollouts.create(
          { name: "to all", firmwareId: fwNext._id, productTypeId: null, stages: [50, 100], autoAdvance: false },
          by,
        );
        await act(everyone._id, "start");
        await agree("all at 50 %");
        await act(everyone._id, "advance");
        await agree("all at 100 %");
        // a device that appears now is held by the rollout to all at once (its keys are written as it checks in)
        all.push("r060");
        await checkin(stores, "r060");
        const offered = await agree("a new device, all at 100 %");
        assert.equal(offered.get(fwNext._id)?.length, all.length - 3, "all but the three pinned");
        await act(everyone._id, "advance");
        await act(everyone._id, "promote");
        currentDefault = fwNext._id;
        await agree("finished and promoted");
      });
    },
  );
}
