import assert from "node:assert/strict";
import { ADMIN_EMAIL, startServer } from "../../testing/server.ts";
import { cliJson, runCli, show } from "./run_cli.ts";

Deno.test("CLI tokens create, list, revoke; a tdc_ token works as --token and CONSOLE_TOKEN", async (t) => {
  await using srv = await startServer();
  const session = (await srv.login()).token;
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: session };
  let secret = "";
  let id = "";

  await t.step("create prints the secret alone on stdout, the rest on stderr", async () => {
    const r = await runCli(["tokens", "create", "nightly", "--scope", "read", "--scope", "firmware:write"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^tdc_[A-Za-z0-9_-]{43}\n$/);
    assert.match(r.stderr, /read, firmware:write; expires never\). Its secret follows; it will not be shown again/);
    secret = r.stdout.trim();
  });

  await t.step("create --json with --expires answers the server's JSON", async () => {
    const made = await cliJson<{ _id: string; token: string; expiresAt: string; scopes: string[] }>(
      ["--json", "tokens", "create", "short", "--scope", "read,devices:write", "--expires", "30d"],
      { env },
    );
    assert.match(made.token, /^tdc_/);
    assert.deepEqual(made.scopes, ["read", "devices:write"]);
    const days = (Date.parse(made.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, String(days));
    id = made._id;
  });

  await t.step("the token is a credential: --token and CONSOLE_TOKEN", async () => {
    const viaFlag = await runCli(["--token", secret, "--json", "firmware", "list"], { env: { CONSOLE_URL: srv.url } });
    assert.equal(viaFlag.code, 0, show(viaFlag));
    assert.deepEqual(JSON.parse(viaFlag.stdout), []);
    const viaEnv = await runCli(["--json", "devices", "list"], { env: { ...env, CONSOLE_TOKEN: secret } });
    assert.equal(viaEnv.code, 0, show(viaEnv));
    const refused = await runCli(["tokens", "list"], { env: { ...env, CONSOLE_TOKEN: secret } });
    assert.equal(refused.code, 1, show(refused));
    assert.match(refused.stderr, /^error: No API token may do this/);
  });

  await t.step("list shows both, never a secret; revoke ends one at once", async () => {
    const r = await runCli(["tokens", "list"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^ID +NAME +SCOPES +OWNER/);
    assert.match(r.stdout, new RegExp(`nightly +read,firmware:write +${ADMIN_EMAIL}`));
    assert.ok(!r.stdout.includes("tdc_"));
    const listed = await cliJson<{ _id: string; lastUsedAt: string | null }[]>(["--json", "tokens", "list"], { env });
    assert.equal(listed.length, 2);
    assert.ok(listed.find((x) => x._id !== id)!.lastUsedAt, "the used token shows when it was used");

    const revoked = await runCli(["tokens", "revoke", id], { env });
    assert.equal(revoked.code, 0, show(revoked));
    assert.equal(revoked.stdout, `Revoked API token ${id}.\n`);
    const again = await runCli(["--json", "tokens", "revoke", id], { env });
    assert.equal(again.code, 1, show(again));
    assert.match(again.stderr, /No API token with id/);
  });

  await t.step("a revoked or unknown token: exit 1, naming where it came from", async () => {
    const r = await runCli(["--json", "devices", "list"], {
      env: { ...env, CONSOLE_TOKEN: `tdc_${"x".repeat(43)}` },
    });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /unknown or has been revoked\. \(the token came from CONSOLE_TOKEN\)/);
  });
  await t.step("options in any order: --scope before the name, global --json after the command", async () => {
    const made = await cliJson<{ name: string; scopes: string[] }>(
      ["tokens", "create", "--scope", "read", "--scope", "devices:write", "fleet report", "--json"],
      { env },
    );
    assert.deepEqual([made.name, made.scopes], ["fleet report", ["read", "devices:write"]]);
  });
});
