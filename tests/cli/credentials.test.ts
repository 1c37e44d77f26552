import assert from "node:assert/strict";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer } from "../../testing/server.ts";
import { cliJson, closedPortUrl, runCli, show } from "./run_cli.ts";

Deno.test("CLI login, saved token and the precedence of credentials", async (t) => {
  await using srv = await startServer();
  const config = await Deno.makeTempDir({ prefix: "cli-config-" });
  const tokenFile = `${config}/therapy-console/token.json`;
  const base = { XDG_CONFIG_HOME: config, CONSOLE_URL: srv.url };
  const valid = (await srv.login()).token;
  // Each refused login uses its own unknown e-mail so the per-e-mail throttle never answers 429 instead.
  let wrong = 0;
  const wrongEmail = () => `nobody-${++wrong}@example.com`;

  const probe = (env: Record<string, string>, args: string[] = []) =>
    runCli([...args, "--json", "product-types", "list"], { env: { ...base, ...env } });

  await t.step("with no credentials at all: exit 2 and a hint", async () => {
    const r = await probe({});
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /Not signed in/);
    assert.equal(r.stdout, "");
  });

  await t.step("login reads the password from standard input and saves the token with mode 0600", async () => {
    const r = await runCli(["login", "--email", ADMIN_EMAIL], { env: base, stdin: `${ADMIN_PASSWORD}\nignored\n` });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, new RegExp(`Signed in to ${srv.url} as ${ADMIN_EMAIL}`));
    const info = await Deno.stat(tokenFile);
    assert.equal(info.mode! & 0o777, 0o600);
    const saved = JSON.parse(await Deno.readTextFile(tokenFile));
    assert.equal(saved.url, srv.url);
    assert.equal(saved.email, ADMIN_EMAIL);
    assert.equal(typeof saved.token, "string");
    assert.equal((await Deno.stat(`${config}/therapy-console`)).mode! & 0o777, 0o700);
  });

  await t.step("login --json prints the server's answer; CONSOLE_EMAIL is the default e-mail", async () => {
    const answer = await cliJson<{ token: string }>(["login"], {
      env: { ...base, CONSOLE_EMAIL: ADMIN_EMAIL },
      stdin: `${ADMIN_PASSWORD}\n`,
    });
    assert.deepEqual(Object.keys(answer), ["token"]);
    assert.equal(JSON.parse(await Deno.readTextFile(tokenFile)).token, answer.token);
    assert.equal((await Deno.stat(tokenFile)).mode! & 0o777, 0o600);
  });

  await t.step("the saved token is used when nothing else is given", async () => {
    const r = await probe({});
    assert.equal(r.code, 0, show(r));
    assert.ok(Array.isArray(JSON.parse(r.stdout)));
  });

  await t.step("the saved token is never sent to another URL (exit 2)", async () => {
    const r = await probe({ CONSOLE_URL: `${closedPortUrl()}/` });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, new RegExp(`saved login is for ${srv.url}`));
  });

  await t.step("login with a wrong password: exit 1, the server's msg, the saved token untouched", async () => {
    const before = await Deno.readTextFile(tokenFile);
    const r = await runCli(["login", "--email", ADMIN_EMAIL], { env: base, stdin: "wrong-password\n" });
    assert.equal(r.code, 1, show(r));
    assert.equal(r.stderr.trim(), "error: Invalid email address or password.");
    assert.equal(await Deno.readTextFile(tokenFile), before);
  });

  await t.step("login without an e-mail when standard input is not a terminal: exit 2", async () => {
    const r = await runCli(["login"], { env: base, stdin: `${ADMIN_PASSWORD}\n` });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /--email/);
  });

  await t.step("login with an empty standard input: exit 2", async () => {
    const r = await runCli(["login", "--email", ADMIN_EMAIL], { env: base, stdin: "" });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /No password/);
  });

  await t.step("--token wins over CONSOLE_TOKEN", async () => {
    assert.equal((await probe({ CONSOLE_TOKEN: "garbage" }, ["--token", valid])).code, 0);
    const r = await probe({ CONSOLE_TOKEN: valid }, ["--token", "garbage"]);
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^error: .*--token/);
  });

  await t.step("CONSOLE_TOKEN wins over CONSOLE_EMAIL + CONSOLE_PASSWORD", async () => {
    const ok = await probe({ CONSOLE_TOKEN: valid, CONSOLE_EMAIL: wrongEmail(), CONSOLE_PASSWORD: "x" });
    assert.equal(ok.code, 0, show(ok));
    const refused = await probe({
      CONSOLE_TOKEN: "garbage",
      CONSOLE_EMAIL: ADMIN_EMAIL,
      CONSOLE_PASSWORD: ADMIN_PASSWORD,
    });
    assert.equal(refused.code, 1, show(refused));
  });

  await t.step("CONSOLE_EMAIL + CONSOLE_PASSWORD (a login on the fly) win over the saved token", async () => {
    const saved = await Deno.readTextFile(tokenFile);
    await Deno.writeTextFile(tokenFile, saved.replace(/"token": "[^"]*"/, '"token": "garbage"'));
    const ok = await probe({ CONSOLE_EMAIL: ADMIN_EMAIL, CONSOLE_PASSWORD: ADMIN_PASSWORD });
    assert.equal(ok.code, 0, show(ok));
    const stale = await probe({});
    assert.equal(stale.code, 1, show(stale));
    assert.match(stale.stderr, /\(the token came from the login saved in .*therapy-console\/token\.json\)/);
    await Deno.writeTextFile(tokenFile, saved);
    const refused = await probe({ CONSOLE_EMAIL: wrongEmail(), CONSOLE_PASSWORD: "wrong" });
    assert.equal(refused.code, 1, show(refused));
    assert.equal(refused.stderr.trim(), "error: Invalid email address or password.");
    assert.equal(refused.stdout, "");
  });

  await t.step("CONSOLE_EMAIL without CONSOLE_PASSWORD is wrong usage (exit 2)", async () => {
    const r = await probe({ CONSOLE_EMAIL: ADMIN_EMAIL });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /CONSOLE_PASSWORD is not/);
  });

  await t.step("--url wins over CONSOLE_URL; a server that is down: exit 1 naming the URL", async () => {
    const down = closedPortUrl();
    const r = await probe({ CONSOLE_TOKEN: valid }, ["--url", down]);
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, new RegExp(`^error: Could not reach ${down}/api/v1/product_types: `));
    assert.equal(r.stdout, "");
    const viaEnv = await runCli(["product-types", "list"], { env: { CONSOLE_URL: down, CONSOLE_TOKEN: valid } });
    assert.equal(viaEnv.code, 1, show(viaEnv));
    assert.match(viaEnv.stderr, new RegExp(`^error: Could not reach ${down}/api/v1/product_types: `));
  });

  await t.step("a URL where no console answers: exit 1 naming the URL", async () => {
    const r = await probe({ CONSOLE_TOKEN: valid }, ["--url", `${srv.url}/elsewhere`]);
    assert.equal(r.code, 1, show(r));
    assert.match(
      r.stderr,
      /^error: .*http:.*\/elsewhere\/api\/v1\/product_types.* \(is the console at that URL\?\)$/m,
    );
  });

  await t.step("a URL that is not http(s) is wrong usage (exit 2)", async () => {
    const r = await probe({ CONSOLE_TOKEN: valid }, ["--url", "ftp://example.com"]);
    assert.equal(r.code, 2, show(r));
  });

  await Deno.remove(config, { recursive: true });
});
