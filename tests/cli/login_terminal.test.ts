import assert from "node:assert/strict";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer } from "../../testing/server.ts";
import { show, startCliOnTerminal } from "./run_cli.ts";

Deno.test("CLI login on a terminal asks for the e-mail, then the password without echo", async () => {
  await using srv = await startServer();
  const config = await Deno.makeTempDir({ prefix: "cli-config-" });
  try {
    const session = startCliOnTerminal(["--url", srv.url, "login"], { env: { XDG_CONFIG_HOME: config } });
    await session.waitFor("E-mail: ");
    await session.type(`${ADMIN_EMAIL}\r`);
    await session.waitFor("Password: ");
    // echo is off before the prompt shows (cli/lib/prompt.ts), so typing right away is safe
    await session.type(`${ADMIN_PASSWORD}\r`);
    const r = await session.finish();
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, new RegExp(`Signed in to ${srv.url} as ${ADMIN_EMAIL}`));
    assert.ok(!r.stdout.includes(ADMIN_PASSWORD), `the password was echoed:\n${r.stdout}`);
    const saved = JSON.parse(await Deno.readTextFile(`${config}/therapy-console/token.json`));
    assert.equal(saved.email, ADMIN_EMAIL);
    assert.equal((await Deno.stat(`${config}/therapy-console/token.json`)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(config, { recursive: true });
  }
});
