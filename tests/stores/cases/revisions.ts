import assert from "node:assert/strict";
import { InvalidError, NotFoundError, PreconditionFailedError } from "../../../server/db/errors.ts";
import type { Stores } from "../../../server/db/stores.ts";
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
} from "../fixtures.ts";

const stale = (what: string) =>
  `${what} was changed by someone else since you loaded it: reload it to see the current version, then apply your change again.`;

/** The etag of a device as get and its list row answer it (they must agree). */
async function deviceEtag(stores: Stores, deviceId: string): Promise<string> {
  const device = (await stores.devices.get(deviceId))!;
  const row = (await stores.devices.list(0, 100, deviceId)).data.find((d) => d.deviceId === deviceId)!;
  assert.equal(row.etag, device.etag, "the list row carries the etag get answers");
  return device.etag;
}

async function productTypeEtag(stores: Stores, id: string): Promise<string> {
  const pt = (await stores.productTypes.get(id))!;
  assert.equal((await stores.productTypes.list()).find((p) => p._id === id)!.etag, pt.etag);
  return pt.etag;
}

async function deviceTypeEtag(stores: Stores, id: string): Promise<string> {
  const dt = (await stores.deviceTypes.get(id))!;
  assert.equal((await stores.deviceTypes.list()).find((d) => d._id === id)!.etag, dt.etag);
  return dt.etag;
}

/**
 * Follows one entity's etag: `moved` asserts a write gave it a tag it never had, `still` that a call left it alone.
 */
function tracker(read: () => Promise<string>) {
  const seen: string[] = [];
  return {
    async start() {
      seen.push(await read());
    },
    async moved(what: string, write: () => Promise<unknown>) {
      await write();
      const now = await read();
      assert.ok(!seen.includes(now), `${what} must give a new etag (got ${now}, seen ${seen.join(" ")})`);
      seen.push(now);
    },
    async still(what: string, call: () => Promise<unknown>) {
      await call().catch(() => {});
      assert.equal(await read(), seen.at(-1), `${what} must not change the etag`);
    },
    get all() {
      return [...seen];
    },
  };
}

export function revisionCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "revisions: what moves a device's etag, and what does not", async (stores, t) => {
    const { devices, productTypes } = stores;
    const tr = await addTreatments(stores, ["T"]);
    const pt = await addProductType(stores, "A", [["m", false, [tr.T]], ["n", false, []], ["o", true, []]]);
    const [m, n, o] = pt.modules;
    const fw = await addFirmware(stores, "custom.xz");
    await checkin(stores, "dev");
    await checkin(stores, "other");
    const dev = tracker(() => deviceEtag(stores, "dev"));
    const other = tracker(() => deviceEtag(stores, "other"));
    await dev.start();
    await other.start();
    assert.match(dev.all[0], /^"[^"]+"$/, "a strong entity tag, quoted");

    await t.step("an operator's changes move it, an empty patch too; other devices keep theirs", async () => {
      await dev.moved(
        "a product type and modules",
        () => devices.patch("dev", { productTypeId: pt._id, moduleIds: [m._id, n._id] }),
      );
      await dev.moved("a custom firmware", () => devices.patch("dev", { firmware: fw._id }));
      await dev.moved("additional treatments", () => devices.patch("dev", { additionalTreatmentIds: [tr.T] }));
      await dev.moved("an empty patch (an operator saved the device)", () => devices.patch("dev", {}));
      await other.still("the patches of another device", () => Promise.resolve());
    });

    await t.step("check-ins, reads and refused patches leave it", async () => {
      await dev.still("a check-in with the same version info", () => checkin(stores, "dev"));
      await dev.still(
        "a check-in with new version info",
        () => checkin(stores, "dev", { app: "9", os: null, channels: [] }),
      );
      await dev.still("reads", async () => {
        await stores.deviceApi.config("dev", PRODUCT);
        await devices.list(0, 25);
      });
      await dev.still("a refused patch", () => devices.patch("dev", { firmware: "no-such-firmware" }));
    });

    await t.step("product type changes move it only when they take something from the device", async () => {
      await dev.still("a rename and module edits keeping its modules", () =>
        productTypes.update(pt._id, {
          name: "A renamed",
          modules: [{ ...m, name: "m2" }, n, { ...o, isDefault: false }],
        }));
      await dev.still(
        "removing a module it does not have",
        () => productTypes.update(pt._id, { name: "A", modules: [m, n] }),
      );
      await dev.moved("removing a module it has", () => productTypes.update(pt._id, { name: "A", modules: [m] }));
      await other.still("the cascade on another device", () => Promise.resolve());
      await dev.moved("deleting its product type", () => productTypes.remove(pt._id));
      assert.equal((await devices.get("dev"))!.productTypeId, null);
    });

    await t.step("a device deleted and checked in again never gets an earlier etag back", async () => {
      await devices.remove("dev");
      await dev.moved("checking in again", () => checkin(stores, "dev"));
    });

    await t.step("a write through another instance moves it too", async () => {
      const another = await options.another(stores);
      try {
        await dev.moved("a patch from elsewhere", () => another.devices.patch("dev", {}));
      } finally {
        await another.close();
      }
    });
  });

  storeTest(engine, options, "revisions: product types and device types", async (stores, t) => {
    const { productTypes, deviceTypes } = stores;
    const a = await addProductType(stores, "A", [["m", false, []]]);
    const b = await addProductType(stores, "B");
    const type = tracker(() => productTypeEtag(stores, a._id));
    const otherType = tracker(() => productTypeEtag(stores, b._id));
    await type.start();
    await otherType.start();

    await t.step("a product type's name, theme and modules move its etag; nothing else does", async () => {
      await type.moved("a rename", () => productTypes.update(a._id, { name: "A2", modules: a.modules }));
      await type.moved(
        "a theme",
        () => productTypes.update(a._id, { name: "A2", theme: { c: 1 }, modules: a.modules }),
      );
      await type.moved("a module added", () =>
        productTypes.update(a._id, {
          name: "A2",
          modules: [...a.modules, { name: "new", isDefault: false, treatmentIds: [] }],
        }));
      await type.moved("a module removed", () => productTypes.update(a._id, { name: "A2", modules: [] }));
      await type.still("a refused update", () => productTypes.update(a._id, { name: "B", modules: [] }));
      await type.still("a device's patch", async () => {
        await checkin(stores, "dev");
        await stores.devices.patch("dev", { productTypeId: a._id });
      });
      await otherType.still("changes of another type", () => Promise.resolve());
      const created = await productTypes.create("C");
      assert.ok(!type.all.includes(created.etag) && !otherType.all.includes(created.etag));
    });

    await t.step("a device type's default firmware moves its etag", async () => {
      await deviceTypes.ensure(PRODUCT);
      const managed = (await deviceTypes.list()).find((d) => d.name === MANAGED_TYPE)!;
      const dt = tracker(() => deviceTypeEtag(stores, managed._id));
      await dt.start();
      const fw = await addFirmware(stores, "fw.xz");
      await dt.moved("setting the default", () => deviceTypes.setDefaultFirmware(managed._id, fw._id));
      await dt.moved("setting it again", () => deviceTypes.setDefaultFirmware(managed._id, fw._id));
      await dt.moved("clearing it", () => deviceTypes.setDefaultFirmware(managed._id, null));
      await dt.still("a refused one", () => deviceTypes.setDefaultFirmware(managed._id, "no-such-firmware"));
      await dt.still("ensure", () => deviceTypes.ensure(PRODUCT));
      assert.equal(await deviceTypes.get("nope"), null);
    });
  });

  storeTest(
    engine,
    options,
    "If-Match: a stale etag is PreconditionFailedError and nothing changes",
    async (stores, t) => {
      const { devices, productTypes, deviceTypes } = stores;
      const pt = await addProductType(stores, "Baby", [["m", false, []], ["n", false, []]]);
      const fw = await addFirmware(stores, "fw.xz");
      await checkin(stores, "dev");
      const loaded = (await devices.get("dev"))!;
      const current = await devices.patch("dev", { productTypeId: pt._id, moduleIds: [pt.modules[0]._id] });

      await t.step("device patch: a stale tag is refused with a sentence, the device stays as it was", async () => {
        for (const ifMatch of [[loaded.etag], [], ['"no-such-tag"', loaded.etag]]) {
          await rejectsWith(
            devices.patch("dev", { firmware: fw._id }, ifMatch),
            PreconditionFailedError,
            stale("Device dev"),
          );
        }
        assert.deepEqual(await devices.get("dev"), current);
      });

      await t.step("the current tag, one of a list, or * go ahead", async () => {
        const one = await devices.patch("dev", { firmware: fw._id }, [current.etag]);
        const two = await devices.patch("dev", { firmware: null }, ['"old"', one.etag]);
        const three = await devices.patch("dev", { firmware: fw._id }, "*");
        assert.equal(three.firmware, fw._id);
        assert.equal(new Set([current.etag, one.etag, two.etag, three.etag]).size, 4);
        await rejectsWith(devices.patch("dev", {}, [two.etag]), PreconditionFailedError, stale("Device dev"));
      });

      await t.step(
        "an unknown entity is NotFoundError, not a stale one; a stale tag comes before the rules",
        async () => {
          await rejectsWith(devices.patch("nope", {}, [loaded.etag]), NotFoundError, "No device with deviceId nope.");
          await rejectsWith(devices.remove("nope", "*"), NotFoundError, "No device with deviceId nope.");
          await rejectsWith(
            devices.patch("dev", { firmware: "no-such-firmware" }, [loaded.etag]),
            PreconditionFailedError,
            stale("Device dev"),
          );
          const now = (await devices.get("dev"))!;
          await rejectsWith(
            devices.patch("dev", { firmware: "no-such-firmware" }, [now.etag]),
            InvalidError,
            "firmware: no firmware with id no-such-firmware.",
          );
        },
      );

      await t.step("device remove: stale refused and kept, current removed", async () => {
        await rejectsWith(devices.remove("dev", [loaded.etag]), PreconditionFailedError, stale("Device dev"));
        const kept = (await devices.get("dev"))!;
        await devices.remove("dev", [kept.etag]);
        assert.equal(await devices.get("dev"), null);
      });

      await t.step("product type update and remove: stale refused, nothing changes", async () => {
        await checkin(stores, "dev2");
        await devices.patch("dev2", { productTypeId: pt._id, moduleIds: [pt.modules[1]._id] });
        const device = (await devices.get("dev2"))!;
        const mine = await productTypes.update(pt._id, { name: "Baby", modules: pt.modules }, [pt.etag]);
        const what = stale("Product type Baby");
        await rejectsWith(
          productTypes.update(pt._id, { name: "Renamed", modules: [] }, [pt.etag]),
          PreconditionFailedError,
          what,
        );
        await rejectsWith(productTypes.remove(pt._id, [pt.etag]), PreconditionFailedError, what);
        assert.deepEqual(await productTypes.get(pt._id), mine);
        assert.deepEqual(await devices.get("dev2"), device, "the device keeps its type, modules and etag");
        await rejectsWith(
          productTypes.update("nope", { name: "X", modules: [] }, "*"),
          NotFoundError,
          "No product type with id nope.",
        );
        const renamed = await productTypes.update(pt._id, { name: "Renamed", modules: mine.modules }, "*");
        await productTypes.remove(pt._id, [renamed.etag]);
        assert.equal(await productTypes.get(pt._id), null);
      });

      await t.step("device type default: stale refused, current and * go ahead", async () => {
        await deviceTypes.ensure(PRODUCT);
        const dt = (await deviceTypes.list()).find((d) => d.name === MANAGED_TYPE)!;
        const set = await deviceTypes.setDefaultFirmware(dt._id, fw._id, [dt.etag]);
        await rejectsWith(
          deviceTypes.setDefaultFirmware(dt._id, null, [dt.etag]),
          PreconditionFailedError,
          stale(`Device type ${MANAGED_TYPE}`),
        );
        assert.deepEqual(await deviceTypes.get(dt._id), set);
        assert.equal((await deviceTypes.setDefaultFirmware(dt._id, null, "*")).defaultFirmware, null);
      });

      await t.step("many writes at once with the same tag: exactly one goes ahead", async () => {
        await checkin(stores, "race");
        const before = (await devices.get("race"))!;
        const results = await Promise.allSettled(
          Array.from(
            { length: 20 },
            (_, i) =>
              devices.patch("race", { firmware: i % 2 ? fw._id : null, additionalTreatmentIds: [] }, [before.etag]),
          ),
        );
        const won = results.filter((r) => r.status === "fulfilled");
        assert.equal(won.length, 1);
        for (const r of results) {
          if (r.status === "rejected") assert.ok(r.reason instanceof PreconditionFailedError, String(r.reason));
        }
        assert.deepEqual(await devices.get("race"), (won[0] as PromiseFulfilledResult<unknown>).value);
      });
    },
  );
}
