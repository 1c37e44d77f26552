import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { ADMIN_EMAIL, DEVICE_API_KEY, startServer } from "../../testing/server.ts";
import { cliJson, runCli, show } from "./run_cli.ts";

Deno.test("CLI views save, list, delete; devices list --view applies a saved view, with a read token in CI", async (t) => {
  await using srv = await startServer();
  const session = (await srv.login()).token;
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: session };
  for (const [id, app] of [["cv-1", "1.0.0"], ["cv-2", "2.0.0"], ["cv-3", "2.0.0"], ["cv-4", "3.0.0"]]) {
    await new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
      versionInfo: { app, os: "linux", channels: [] },
    });
  }

  await t.step("views save keeps devices list's filters and sort", async () => {
    const r = await runCli(["views", "save", "App 2", "--app", "2.0.0", "--order", "desc", "--shared"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^Saved view \S+ \(App 2, shared\): app=2\.0\.0 order=desc\.\n$/);
    const again = await runCli(["views", "save", "app 2", "--seen", "never"], { env });
    assert.equal(again.code, 1, show(again));
    assert.match(again.stderr, /already have a saved view named "app 2"/);
    const wrong = await runCli(["views", "save", "Bad", "--seen", "yesterday"], { env });
    assert.equal(wrong.code, 2, show(wrong));
  });

  await t.step("views list: a table, or the server's JSON", async () => {
    const r = await runCli(["views", "list"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^ID +NAME +OWNER +SHARED +QUERY +UPDATED\n/);
    assert.match(r.stdout, new RegExp(`App 2 +${ADMIN_EMAIL} +yes +app=2\\.0\\.0 order=desc`));
    const listed = await cliJson<{ name: string; query: Record<string, string> }[]>(["--json", "views", "list"], {
      env,
    });
    assert.deepEqual(listed.map((v) => [v.name, v.query]), [["App 2", { app: "2.0.0", order: "desc" }]]);
  });

  await t.step("devices list --view NAME (any case) applies it; options given override its members", async () => {
    const ids = async (args: string[], e = env) =>
      (await cliJson<{ data: { deviceId: string }[] }>(["--json", "devices", "list", ...args], { env: e })).data
        .map((d) => d.deviceId);
    assert.deepEqual(await ids(["--view", "app 2"]), ["cv-3", "cv-2"]);
    assert.deepEqual(await ids(["--view", "App 2", "--order", "asc"]), ["cv-2", "cv-3"]);
    assert.deepEqual(await ids(["--view", "App 2", "--app", "3.0.0"]), ["cv-4"]);
    const csv = await runCli(["devices", "list", "--view", "App 2", "--csv"], { env });
    assert.equal(csv.code, 0, show(csv));
    assert.deepEqual(csv.stdout.trim().split("\n").slice(1).map((l) => l.split(",")[0]), ["cv-3", "cv-2"]);
    const missing = await runCli(["devices", "list", "--view", "No such view"], { env });
    assert.equal(missing.code, 1, show(missing));
    assert.match(missing.stderr, /^error: No saved view with id or name 'No such view' \(see views list\)/);

    // CI: a read-only API token of another operator opens the shared view.
    const admin = await srv.login();
    await admin.createOperator({ email: "ci@example.com", password: "ci-pass-1234", role: "viewer" });
    const ciEnv = { CONSOLE_URL: srv.url, CONSOLE_EMAIL: "ci@example.com", CONSOLE_PASSWORD: "ci-pass-1234" };
    const token = (await runCli(["tokens", "create", "ci", "--scope", "read"], { env: ciEnv })).stdout.trim();
    assert.match(token, /^tdc_/);
    assert.deepEqual(await ids(["--view", "App 2"], { CONSOLE_URL: srv.url, CONSOLE_TOKEN: token }), ["cv-3", "cv-2"]);
    const refused = await runCli(["views", "save", "by token"], {
      env: { CONSOLE_URL: srv.url, CONSOLE_TOKEN: token },
    });
    assert.equal(refused.code, 1, show(refused));
    assert.match(refused.stderr, /No API token may do this/);
  });

  await t.step("views save --replace gives one's own view of that name new filters", async () => {
    const r = await runCli(["views", "save", "app 2", "--app", "3.0.0", "--replace"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^Replaced view \S+ \(App 2, shared\): app=3\.0\.0\.\n$/);
    const ids = (await cliJson<{ data: { deviceId: string }[] }>(["--json", "devices", "list", "--view", "App 2"], {
      env,
    })).data.map((d) => d.deviceId);
    assert.deepEqual(ids, ["cv-4"]);
  });

  await t.step("views update renames and unshares one's own view", async () => {
    const r = await runCli(["views", "update", "App 2", "--name", "App three", "--private"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^Updated view \S+ \(App three\): app=3\.0\.0\.\n$/);
  });

  await t.step("views delete by name; then it is gone", async () => {
    const r = await runCli(["--json", "views", "delete", "APP THREE"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^\{\s*"deleted": "\S+"\s*\}\n$/);
    const empty = await runCli(["views", "list"], { env });
    assert.equal(empty.stdout, "No saved views.\n");
  });
});
