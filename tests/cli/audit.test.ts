import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { routes } from "../../shared/routes/mod.ts";
import type { AuditList } from "../../shared/schemas/audit.ts";
import { ADMIN_EMAIL, DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { cliJson, closedPortUrl, runCli, show } from "./run_cli.ts";

Deno.test("CLI audit list: filters, paging, a table, --json; viewers refused", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  for (const id of ["JB-1", "JB-2", "JB-3"]) {
    await new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
      versionInfo: { app: "1", os: "1", channels: [] },
    });
  }
  await api.patchDevice({ deviceId: "JB-2", firmware: null });

  await t.step("--json prints the server's page; filters narrow it", async () => {
    const all = await cliJson<AuditList>(["audit", "list"], { env });
    assert.equal(all.data[0].action, "device.update");
    assert.equal(all.total, all.data.length);
    const created = await cliJson<AuditList>(["audit", "list", "--action", "device.create"], { env });
    assert.deepEqual(created.data.map((e) => e.target?.id), ["JB-3", "JB-2", "JB-1"]);
    const ofOne = await cliJson<AuditList>(["audit", "list", "--target-type", "device", "--target-id", "JB-2"], {
      env,
    });
    assert.deepEqual(ofOne.data.map((e) => e.action), ["device.update", "device.create"]);
    const byAdmin = await cliJson<AuditList>(["audit", "list", "--actor", ADMIN_EMAIL, "--per-page", "1"], { env });
    assert.deepEqual([byAdmin.data.length, byAdmin.data[0].action], [1, "device.update"]);
    const later = await cliJson<AuditList>(["audit", "list", "--from", "2999-01-01"], { env });
    assert.deepEqual(later.data, []);
    const paged = await cliJson<AuditList>(["audit", "list", "--page", "1", "--per-page", "2"], { env });
    assert.deepEqual(paged.data.map((e) => e.seq), [all.data[2].seq, all.data[3].seq]);
  });

  await t.step("a table, newest first, with the page", async () => {
    const r = await runCli(["audit", "list", "--action", "device.create"], { env });
    assert.equal(r.code, 0, show(r));
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0], /^#\s+AT\s+ACTOR\s+ACTION\s+TARGET\s+IP\s+DETAILS$/);
    assert.match(lines[2], /device:JB-3\s+device\.create\s+device:JB-3/);
    assert.match(lines.at(-1)!, /Entries 1-3 of 3; page 0 of pages 0-0/);
  });

  await t.step("bad options are wrong usage (exit 2) and reach no server", async () => {
    for (const args of [["--action", "device.explode"], ["--from", "yesterday"], ["--per-page", "0"]]) {
      const r = await runCli(["audit", "list", ...args], { env: { ...env, CONSOLE_URL: closedPortUrl() } });
      assert.equal(r.code, 2, `${args.join(" ")}: ${show(r)}`);
      assert.match(r.stderr, /^error: /);
    }
  });

  await t.step("a viewer is refused (exit 1, the server's message)", async () => {
    await api.call(routes.createOperator, {
      body: { email: "viewer@example.com", role: "viewer", password: "viewer-pass-1" },
    });
    const viewer = await srv.login("viewer@example.com", "viewer-pass-1");
    const r = await runCli(["audit", "list"], { env: { CONSOLE_URL: srv.url, CONSOLE_TOKEN: viewer.token } });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /operator role; you are signed in as viewer/);
  });
});
