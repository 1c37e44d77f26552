import assert from "node:assert/strict";
import { addProductType, addTreatments, checkin, type ConformanceOptions, storeTest, tick } from "../fixtures.ts";

export function changeCounterCases(engine: string, options: ConformanceOptions) {
  storeTest(engine, options, "devices.version: moves with every device write, by anyone", async (stores, t) => {
    const { devices } = stores;
    let last = await devices.version();
    const moved = async (what: string, write: () => Promise<unknown>) => {
      await write();
      const now = await devices.version();
      assert.notEqual(now, last, `${what} must change the version`);
      last = now;
    };
    const still = async (what: string, call: () => Promise<unknown>) => {
      await call().catch(() => {});
      assert.equal(await devices.version(), last, `${what} must not change the version`);
    };
    const tr = await addTreatments(stores, ["T"]);
    const pt = await addProductType(stores, "A", [["m", false, [tr.T]], ["n", false, []]]);
    const [m, n] = pt.modules.map((x) => x._id);

    await t.step("writes to devices and their links move it", async () => {
      await moved("a first check-in", () => checkin(stores, "d1"));
      // A later time: a check-in in the same millisecond as the last one writes nothing (last-seen only moves forward).
      await tick();
      await moved("another check-in", () => checkin(stores, "d1"));
      await moved("a patch", () => devices.patch("d1", { productTypeId: pt._id, moduleIds: [m, n] }));
      await moved("an empty patch", () => devices.patch("d1", {}));
      await moved(
        "removing a module the device has",
        () => stores.productTypes.update(pt._id, { name: "A", modules: [pt.modules[0]] }),
      );
      await moved("deleting its product type", () => stores.productTypes.remove(pt._id));
      await moved("deleting the device", () => devices.remove("d1"));
    });

    await t.step("reads, refusals and other tables leave it", async () => {
      await still("reads", async () => {
        await devices.list(0, 25);
        await devices.get("d1");
        await stores.deviceApi.config("d1", "x");
      });
      await still("a refused patch", () => devices.patch("nope", {}));
      await still("a product type", () => addProductType(stores, "B", [["x", true, []]]));
      await still("an import", () => addTreatments(stores, ["U"]));
    });

    await t.step("a write through another instance moves it", async () => {
      const other = await options.another(stores);
      try {
        await checkin(other, "from-elsewhere");
      } finally {
        await other.close();
      }
      assert.notEqual(await devices.version(), last);
      assert.ok(await devices.get("from-elsewhere"));
    });
  });

  storeTest(
    engine,
    options,
    "the request's operator or API token read with devices.version, in one",
    async (stores, t) => {
      const { operators, apiTokens, devices } = stores;
      const op = await operators.add("op@example.com", "h", "operator");
      await apiTokens.create(op._id, { name: "r", scopes: ["read"], expiresAt: null }, "a".repeat(64));
      const both = async () => ({
        operator: await operators.currentWithDevicesVersion(" OP@example.com"),
        token: await apiTokens.currentWithDevicesVersion("a".repeat(64)),
      });

      await t.step("the same rows as current(), the counter as version()", async () => {
        const { operator, token } = await both();
        assert.deepEqual(operator, {
          operator: await operators.current("op@example.com"),
          devicesVersion: await devices.version(),
        });
        assert.deepEqual(token, {
          found: await apiTokens.current("a".repeat(64)),
          devicesVersion: await devices.version(),
        });
      });

      await t.step("nobody and no token: null, the counter still answered", async () => {
        const version = await devices.version();
        assert.deepEqual(await operators.currentWithDevicesVersion("nobody@example.com"), {
          operator: null,
          devicesVersion: version,
        });
        assert.deepEqual(await apiTokens.currentWithDevicesVersion("b".repeat(64)), {
          found: null,
          devicesVersion: version,
        });
      });

      await t.step("a device write and a disabling by another instance are seen at once", async () => {
        const before = await both();
        const other = await options.another(stores);
        try {
          await checkin(other, "elsewhere");
          await other.operators.update(op._id, { disabled: true });
        } finally {
          await other.close();
        }
        const after = await both();
        assert.notEqual(after.operator.devicesVersion, before.operator.devicesVersion);
        assert.equal(after.operator.devicesVersion, await devices.version());
        assert.equal(after.token.devicesVersion, await devices.version());
        assert.equal(after.operator.operator!.disabled, true);
        assert.equal(after.token.found!.owner.disabled, true);
      });
    },
  );
}
