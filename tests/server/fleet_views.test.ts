/**
 * Fleet views over HTTP (docs/REQUIREMENTS.md §16): GET devices with sort and filters, devices.csv streamed, devices/bulk in one
 * transaction, the overview, and the CLI's devices list with the same filters and --csv.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import type { DeviceList } from "../../shared/schemas/mod.ts";
import { bytesSource } from "../../testing/files.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { cliJson, runCli, show } from "../cli/run_cli.ts";

Deno.test("fleet views: filters, sort, CSV, bulk, overview, CLI", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const ids = Array.from({ length: 30 }, (_, i) => `FV-${String(i).padStart(3, "0")}`);
  for (const [i, id] of ids.entries()) {
    await new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
      versionInfo: { app: i % 3 === 0 ? "3.0" : "2.9", os: 'os,"quoted"', channels: [] },
    });
  }
  const pt = await api.createProductType("Clinic");
  const fw = await api.uploadFirmware(bytesSource("pinned.xz", xzBytes("pinned")));
  const get = async (query: string) => {
    const res = await srv.fetch(`/api/v1/devices?${query}`, { token: api.token });
    return { status: res.status, json: await res.json() };
  };

  await t.step("unknown sort, order, seen or a bad filter value: 400 naming the parameter", async () => {
    for (const q of ["sort=colour", "order=up", "seen=1h", "app=", "productTypeId="]) {
      const r = await get(q);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.error, "invalid_request");
      assert.match(r.json.msg, new RegExp(q.split("=")[0]), q);
    }
  });

  await t.step("bulk by ids: 200 {updated}; an unknown device changes none (400)", async () => {
    const refused = await srv.fetch("/api/v1/devices/bulk", {
      method: "POST",
      token: api.token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deviceIds: [ids[0], "nope"], filter: null, set: { firmware: fw._id } }),
    });
    assert.equal(refused.status, 400);
    assert.match((await refused.json()).msg, /nope/);
    assert.deepEqual((await api.listDevices({ firmware: "custom" })).total, 0);
    const both = await srv.fetch("/api/v1/devices/bulk", {
      method: "POST",
      token: api.token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deviceIds: [ids[0]], filter: {}, set: { firmware: fw._id } }),
    });
    assert.equal(both.status, 400, "exactly one of deviceIds and filter");
    assert.deepEqual(
      await api.bulkDevices({ deviceIds: ids.slice(0, 4), filter: null, set: { firmware: fw._id } }),
      { updated: 4 },
    );
    assert.deepEqual(
      await api.bulkDevices({ deviceIds: null, filter: { app: "3.0" }, set: { productTypeId: pt._id } }),
      { updated: 10 },
    );
    // One audit entry per device changed, by the operator who made the change.
    const audit = await srv.fetch("/api/v1/audit?action=device.bulk_update&rowsPerPage=100", { token: api.token });
    const entries = (await audit.json()).data as { actor: { name: string }; target: { id: string } }[];
    assert.equal(entries.length, 14);
    assert.ok(entries.every((e) => e.actor.name === "admin@example.com"));
    assert.equal(new Set(entries.map((e) => e.target.id)).size, 12, "FV-000 and FV-003 changed twice");
  });

  await t.step("GET devices: filters combine, sort with ties by deviceId, paging and totals", async () => {
    const custom = await api.listDevices({ firmware: fw._id, rowsPerPage: 2, page: 1 });
    assert.equal(custom.total, 4);
    assert.deepEqual(custom.data.map((d) => d.deviceId), [ids[2], ids[3]]);
    const typed = await api.listDevices({ productTypeId: pt._id, firmware: "custom" });
    assert.deepEqual(typed.data.map((d) => d.deviceId), [ids[0], ids[3]]);
    const none = await api.listDevices({ productTypeId: "none", app: "3.0" });
    assert.equal(none.total, 0);
    const desc = await api.listDevices({ sort: "app", order: "desc", rowsPerPage: 3 });
    assert.deepEqual(desc.data.map((d) => d.deviceId), [ids[27], ids[24], ids[21]]);
    assert.equal(desc.total, 30);
    const byType = await api.listDevices({ sort: "productType", rowsPerPage: 100 });
    assert.equal(byType.data[0].productTypeId, null);
    assert.equal(byType.data.at(-1)!.productTypeId, pt._id);
    assert.equal((await api.listDevices({ seen: "never" })).total, 0);
    assert.equal((await api.listDevices({ seen: "24h" })).total, 30);
  });

  await t.step("devices.csv: every matching device (not a page), header row, quoting, filters and sort", async () => {
    const res = await srv.fetch("/api/v1/devices.csv?app=3.0&sort=deviceId&order=desc", { token: api.token });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/csv/);
    const lines = (await res.text()).trimEnd().split("\r\n");
    assert.equal(
      lines[0],
      "deviceId,productType,customFirmware,additionalModules,additionalTreatments,lastLoggedIn,updatedAt,app,os",
    );
    assert.equal(lines.length, 1 + 10);
    assert.ok(lines[1].startsWith(`${ids[27]},Clinic,,0,0,`), lines[1]);
    assert.ok(lines[1].endsWith(`,3.0,"os,""quoted"""`), lines[1]);
    assert.ok(lines.at(-1)!.startsWith(`${ids[0]},Clinic,pinned.xz,`), lines.at(-1)!);
    const all = await srv.fetch("/api/v1/devices.csv", { token: api.token });
    assert.equal((await all.text()).trimEnd().split("\r\n").length, 31);
    const bad = await srv.fetch("/api/v1/devices.csv?seen=soon", { token: api.token });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
  });

  await t.step("overview: counts of check-ins, product types, firmware in effect and apps", async () => {
    const o = await api.overview();
    assert.deepEqual(o.devices, { total: 30, seen24h: 30, seen7d: 30, stale: 0, never: 0, pending: 0 });
    assert.deepEqual(o.productTypes, [
      { _id: null, name: null, devices: 20 },
      { _id: pt._id, name: "Clinic", devices: 10 },
    ]);
    assert.deepEqual(o.firmwares, [{ _id: null, name: null, devices: 26 }, {
      _id: fw._id,
      name: "pinned.xz",
      devices: 4,
    }]);
    assert.deepEqual(o.apps, [{ version: "2.9", devices: 20 }, { version: "3.0", devices: 10 }]);
  });

  await t.step("deleting a firmware in use names the devices (the console links to them)", async () => {
    const res = await srv.fetch(`/api/v1/device_firmwares/${fw._id}`, { method: "DELETE", token: api.token });
    assert.equal(res.status, 409);
    assert.match((await res.json()).msg, /4 devices/);
  });

  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  await t.step("CLI devices list: the filters and sort by name, --csv streams every match", async () => {
    const list = await cliJson<DeviceList>([
      "devices",
      "list",
      "--firmware",
      "pinned.xz",
      "--product-type",
      "Clinic",
      "--sort",
      "deviceId",
      "--order",
      "desc",
    ], { env });
    assert.deepEqual(list.data.map((d) => d.deviceId), [ids[3], ids[0]]);
    const csv = await runCli(["devices", "list", "--app", "2.9", "--seen", "7d", "--csv"], { env });
    assert.equal(csv.code, 0, show(csv));
    const lines = csv.stdout.trimEnd().split("\r\n");
    assert.equal(lines.length, 21);
    assert.ok(lines[1].startsWith(ids[1]));
    const usage = await runCli(["devices", "list", "--sort", "colour"], { env });
    assert.equal(usage.code, 2, show(usage));
    const refused = await runCli(["devices", "list", "--product-type", "Nope"], { env });
    assert.equal(refused.code, 1, show(refused));
  });
});

Deno.test("fleet views: the update-state filter (the latest report's state, or none), in the list, the CSV and the CLI", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const fw = await api.uploadFirmware(bytesSource("update-1.0.xz", xzBytes("update")));
  const managed = (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });
  const device = (id: string) => new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY });
  for (const id of ["UP-1", "UP-2", "UP-3", "UP-4"]) {
    await device(id).checkin({ versionInfo: { app: "1.0", os: "os", channels: [] } });
  }
  await device("UP-1").status({ firmwareId: fw._id, state: "installed", progress: 100 });
  await device("UP-2").status({ firmwareId: fw._id, state: "downloading", progress: 10 });
  await device("UP-3").status({ firmwareId: fw._id, state: "downloading", progress: 10 });
  await device("UP-3").status({ firmwareId: fw._id, state: "failed", message: "checksum" });
  const ids = async (update: string) => {
    const res = await srv.fetch(`/api/v1/devices?update=${update}`, { token: api.token });
    assert.equal(res.status, 200, update);
    const list = await res.json() as DeviceList;
    assert.equal(list.total, list.data.length);
    return list.data.map((d) => d.deviceId);
  };
  assert.deepEqual(await ids("installed"), ["UP-1"]);
  assert.deepEqual(await ids("downloading"), ["UP-2"]);
  assert.deepEqual(await ids("failed"), ["UP-3"]);
  assert.deepEqual(await ids("installing"), []);
  assert.deepEqual(await ids("none"), ["UP-4"]);
  const bad = await srv.fetch("/api/v1/devices?update=done", { token: api.token });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).msg, /update/);
  const csv = await (await srv.fetch("/api/v1/devices.csv?update=failed", { token: api.token })).text();
  assert.equal(csv.trim().split("\r\n").length, 2, csv);
  assert.match(csv, /UP-3/);
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const cli = await cliJson<DeviceList>(["devices", "list", "--update", "none"], { env });
  assert.deepEqual(cli.data.map((d) => d.deviceId), ["UP-4"]);
  const usage = await runCli(["devices", "list", "--update", "done"], { env });
  assert.equal(usage.code, 2, show(usage));
});

Deno.test("fleet views: a combination of filters is counted only so far past the page (exact: false), in the API and the CLI", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const n = 290; // more than a page of 25 and VIEW_COUNT_LIMIT (250) past it
  const ids = Array.from({ length: n }, (_, i) => `CAP-${String(i).padStart(4, "0")}`);
  for (let i = 0; i < n; i += 30) {
    await Promise.all(
      ids.slice(i, i + 30).map((id) =>
        new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
          versionInfo: { app: "5.0", os: "os-x", channels: [] },
        })
      ),
    );
  }
  const get = async (query: string) => {
    const res = await srv.fetch(`/api/v1/devices?${query}`, { token: api.token });
    assert.equal(res.status, 200, query);
    return await res.json() as DeviceList;
  };
  const capped = await get("app=5.0&os=os-x&sort=createdAt");
  assert.deepEqual([capped.data.length, capped.total, capped.exact], [25, 275, false]);
  const alone = await get("app=5.0&sort=createdAt");
  assert.deepEqual([alone.total, alone.exact], [n, true], "one kept filter is exact");
  const last = await get("app=5.0&os=os-x&sort=createdAt&page=11");
  assert.deepEqual([last.data.length, last.total, last.exact], [15, n, true], "the last page knows the end");
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const cli = await runCli(["devices", "list", "--app", "5.0", "--os", "os-x"], { env });
  assert.equal(cli.code, 0, show(cli));
  assert.match(cli.stdout, /Devices 1-25 of at least 275; page 0 of pages 0-10 and more\./);
  const exact = await runCli(["devices", "list", "--app", "5.0"], { env });
  assert.match(exact.stdout, /Devices 1-25 of 290; page 0 of pages 0-11\./);
});
