/** CLI device admission (docs/REQUIREMENTS.md §11, §8): pending, accept, reject, reset-credentials, preauthorize; --json; exits. */
import assert from "node:assert/strict";
import type { Device, DeviceList, PreauthorizeManyResult } from "../../shared/schemas/mod.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { cliJson, runCli, show } from "./run_cli.ts";

const VERSION = { app: "3.0.0", os: "linux-6.6", channels: [] };

Deno.test("CLI devices pending/accept/reject/reset-credentials/preauthorize", async (t) => {
  await using srv = await startServer({ env: { DEVICE_AUTH: "token" } });
  const api = await srv.login();
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const enroll = async (id: string) => {
    const res = await srv.fetch(`/api/v1/device/${id}/enroll`, {
      method: "POST",
      token: DEVICE_API_KEY,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ versionInfo: VERSION }),
    });
    return { status: res.status, json: await res.json() };
  };
  for (const id of ["JB-1", "JB-2", "JB-3"]) assert.equal((await enroll(id)).status, 202);

  await t.step("devices pending: a table and a count; --json the server's page", async () => {
    const r = await runCli(["devices", "pending"], { env });
    assert.equal(r.code, 0, show(r));
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0], /^DEVICE ID\s+APP\s+OS/);
    assert.match(lines[2], /^JB-1\s+3\.0\.0\s+linux-6\.6/);
    assert.match(lines.at(-1)!, /^3 device\(s\) waiting/);
    const list = await cliJson<DeviceList>(["devices", "pending", "--per-page", "2"], { env });
    assert.deepEqual([list.total, list.data.map((d) => d.deviceId)], [3, ["JB-1", "JB-2"]]);
  });

  await t.step("devices accept / reject several ids; the devices as they now are with --json", async () => {
    const r = await runCli(["devices", "accept", "JB-1", "JB-2"], { env });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout, "Accepted JB-1.\nAccepted JB-2.\n");
    const rejected = await cliJson<Device[]>(["devices", "reject", "JB-3"], { env });
    assert.deepEqual(rejected.map((d) => [d.deviceId, d.admission]), [["JB-3", "rejected"]]);
    assert.equal((await enroll("JB-3")).status, 403);
    assert.equal((await enroll("JB-1")).status, 201);
    assert.equal((await runCli(["devices", "pending"], { env })).stdout.trim(), "No device is waiting for admission.");
  });

  await t.step("an unknown id among several: the others are done, the refusal on stderr, exit 1", async () => {
    const r = await runCli(["--json", "devices", "accept", "JB-3", "no-such-device"], { env });
    assert.equal(r.code, 1, show(r));
    assert.deepEqual(JSON.parse(r.stdout).map((d: Device) => d.deviceId), ["JB-3"]);
    assert.match(r.stderr, /no-such-device: No device with deviceId no-such-device\./);
    assert.match(r.stderr, /1 of 2 device\(s\) refused: no-such-device\./);
  });

  await t.step("reset-credentials: the device may enrol again", async () => {
    assert.equal((await enroll("JB-1")).status, 409);
    const r = await runCli(["devices", "reset-credentials", "JB-1"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Credentials of JB-1 reset; it may enrol again \(admission: accepted\)\./);
    assert.equal((await enroll("JB-1")).status, 201);
  });

  await t.step("preauthorize ids and --file; known ids listed", async () => {
    const file = await Deno.makeTempFile({ suffix: ".txt" });
    await Deno.writeTextFile(file, "# batch 7\nF-2\n\n  F-3  \nJB-3\n");
    const result = await cliJson<PreauthorizeManyResult>(["devices", "preauthorize", "F-1", "--file", file], { env });
    assert.deepEqual(result, {
      created: ["F-1", "F-2", "F-3"],
      existing: [{ deviceId: "JB-3", admission: "accepted" }],
    });
    const again = await runCli(["devices", "preauthorize", "F-1"], { env });
    assert.equal(again.code, 0, show(again));
    assert.equal(again.stdout, "Pre-authorized 0 device(s).\n1 already known, left as they are: F-1 (accepted).\n");
    assert.equal((await enroll("F-2")).status, 201);
    await Deno.remove(file);
  });

  await t.step("wrong usage is exit 2 and reaches no server", async () => {
    for (
      const args of [
        ["devices", "accept"],
        ["devices", "accept", "bad id"],
        ["devices", "preauthorize"],
        ["devices", "preauthorize", "--file", "/no/such/ids.txt"],
        ["devices", "reset-credentials"],
      ]
    ) {
      const r = await runCli(args, { env: { CONSOLE_URL: "http://127.0.0.1:1", CONSOLE_TOKEN: "x" } });
      assert.equal(r.code, 2, `${args.join(" ")}\n${show(r)}`);
      assert.equal(r.stdout, "");
    }
    const file = await Deno.makeTempFile({ suffix: ".txt" });
    await Deno.writeTextFile(file, "ok-1\nnot ok\n");
    const r = await runCli(["devices", "preauthorize", "--file", file], { env });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /line 2: "not ok" is not a device id/);
    assert.equal((await api.listDevices({ q: "ok-1" })).total, 0);
    await Deno.remove(file);
  });
});
