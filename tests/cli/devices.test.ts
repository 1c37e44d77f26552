import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import type { Device, DeviceList, ProductType } from "../../shared/schemas/mod.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { cliJson, closedPortUrl, runCli, show } from "./run_cli.ts";

const VERSION = { app: "2.4.1", os: "linux-6.1", channels: ["ch-a 1.0", "ch-b 1.1"] };

Deno.test("CLI devices list/show and product-types list", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const ids = Array.from({ length: 12 }, (_, i) => `JB-${String(i).padStart(4, "0")}`);
  for (const id of ids) {
    await new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({ versionInfo: VERSION });
  }
  const created = await api.createProductType("Baby Pro");
  const withModule = await api.patchProductType({
    _id: created._id,
    name: created.name,
    modules: [{ name: "Pain relief", isDefault: true, treatmentIds: [] }],
  });
  await api.patchDevice({ deviceId: ids[3], productTypeId: withModule._id, moduleIds: [withModule.modules[0]._id] });

  await t.step("devices list --json prints the server's page, with --page, --per-page and --q", async () => {
    const first = await cliJson<DeviceList>(["devices", "list"], { env });
    assert.equal(first.total, 12);
    assert.equal(first.page, 0);
    assert.deepEqual(first.data.map((d) => d.deviceId), ids);
    const paged = await cliJson<DeviceList>(["devices", "list", "--page", "1", "--per-page", "5"], { env });
    assert.deepEqual(paged.data.map((d) => d.deviceId), ids.slice(5, 10));
    assert.equal(paged.page, 1);
    assert.equal(paged.per_page, 5);
    const found = await cliJson<DeviceList>(["devices", "list", "--q", "jb-001"], { env });
    assert.deepEqual(found.data.map((d) => d.deviceId), ["JB-0010", "JB-0011"]);
    assert.equal(found.total, 2);
  });

  await t.step("devices list prints a table with product type names and the page", async () => {
    const r = await runCli(["devices", "list", "--per-page", "5"], { env });
    assert.equal(r.code, 0, show(r));
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0], /^DEVICE ID\s+PRODUCT TYPE\s+CUSTOM FIRMWARE/);
    assert.equal(lines.length, 2 + 5 + 1);
    assert.match(lines.find((l) => l.startsWith("JB-0003"))!, /Baby Pro/);
    assert.match(lines.at(-1)!, /Devices 1-5 of 12; page 0 of pages 0-2/);
    assert.equal(r.stderr, "");
  });

  await t.step("bad paging options are wrong usage (exit 2) and reach no server", async () => {
    for (const args of [["--per-page", "0"], ["--per-page", "101"], ["--page", "-1"], ["--page", "x"], ["--bogus"]]) {
      const r = await runCli(["devices", "list", ...args], { env: { ...env, CONSOLE_URL: closedPortUrl() } });
      assert.equal(r.code, 2, `${args.join(" ")}: ${show(r)}`);
      assert.match(r.stderr, /^error: /);
      assert.equal(r.stdout, "");
    }
  });

  await t.step("devices show --json prints the device; the table names type and modules", async () => {
    const device = await cliJson<Device>(["devices", "show", ids[3]], { env });
    assert.equal(device.deviceId, ids[3]);
    assert.equal(device.productTypeId, withModule._id);
    assert.deepEqual(device.versionInfo, VERSION);
    const r = await runCli(["devices", "show", ids[3]], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Product type:\s+Baby Pro/);
    assert.match(r.stdout, /Enabled modules:\s+Pain relief/);
    assert.match(r.stdout, /Version channels:\s+ch-a 1\.0 \/ ch-b 1\.1/);
    assert.match(r.stdout, /Attributes:\s+-\n/, "none reported through hawkBit DDI");
    assert.match(r.stdout, /Firmware in effect:\s+none \(no custom firmware, no rollout, no default\)/);
  });

  await t.step("devices show of an unknown device: exit 1 with the server's msg", async () => {
    const r = await runCli(["devices", "show", "NOPE-1"], { env });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^error: .*NOPE-1/);
    assert.equal(r.stdout, "");
  });

  await t.step("devices show without an id is wrong usage (exit 2)", async () => {
    const r = await runCli(["devices", "show"], { env });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /missing required argument/);
  });

  await t.step("product-types list --json and as a table", async () => {
    await api.createProductType("Adult Basic");
    const list = await cliJson<ProductType[]>(["product-types", "list"], { env });
    assert.deepEqual(list.map((p) => p.name), ["Adult Basic", "Baby Pro"]);
    assert.deepEqual(list[1].modules.map((m) => m.name), ["Pain relief"]);
    const r = await runCli(["product-types", "list"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout.split("\n")[0], /^NAME\s+MODULES\s+DEFAULT MODULES/);
    assert.match(r.stdout, /Baby Pro\s+Pain relief\s+Pain relief/);
  });
});
