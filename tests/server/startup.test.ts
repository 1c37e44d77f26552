/**
 * Starting the server: a busy port, TRUST_PROXY, a missing xz tool, and `deno task demo` with DATA_DIR and PORT from
 * the environment.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../../server/config.ts";
import { freePort } from "../../testing/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("a busy port stops the start with one line naming PORT, before anything is created or printed", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (busy.addr as Deno.NetAddr).port;
  const parent = await Deno.makeTempDir({ prefix: "busy-port-" });
  try {
    const dataDir = join(parent, "data");
    // No ADMIN_*: a start that got further would create admin@example.com and print its one-time password.
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "server/main.ts"],
      cwd: ROOT,
      env: { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, ADMIN_EMAIL: "", ADMIN_PASSWORD: "" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr).trim();
    assert.equal(out.code, 1, stderr);
    assert.equal(stdout, "");
    assert.equal(stderr.split("\n").length, 1, stderr);
    assert.match(stderr, new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use; .*\\bPORT\\b`));
    assert.doesNotMatch(stderr, /password/i);
    assert.equal(await exists(dataDir), false, "DATA_DIR was created");
  } finally {
    busy.close();
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("TRUST_PROXY takes 1 or 0; anything else stops the start with one line naming it", async () => {
  assert.equal(parseConfig({}).trustProxy, false);
  assert.equal(parseConfig({ TRUST_PROXY: "1" }).trustProxy, true);
  assert.equal(parseConfig({ TRUST_PROXY: "0" }).trustProxy, false);
  const dataDir = await Deno.makeTempDir({ prefix: "trust-proxy-" });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "server/main.ts"],
    cwd: ROOT,
    env: { TRUST_PROXY: "yes", DATA_DIR: dataDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(dataDir, { recursive: true });
  assert.equal(out.code, 1);
  assert.equal(new TextDecoder().decode(out.stderr).trim(), "Invalid configuration: TRUST_PROXY must be 1 or 0.");
});

Deno.test("without the xz tool the start stops with one line naming it, before anything is created", async () => {
  const parent = await Deno.makeTempDir({ prefix: "no-xz-" });
  try {
    const dataDir = join(parent, "data");
    const emptyBin = join(parent, "bin");
    await Deno.mkdir(emptyBin);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "server/main.ts"],
      cwd: ROOT,
      env: { PATH: emptyBin, PORT: String(freePort()), HOST: "127.0.0.1", DATA_DIR: dataDir },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr).trim();
    assert.equal(out.code, 1, stderr);
    assert.equal(new TextDecoder().decode(out.stdout), "");
    assert.equal(stderr.split("\n").length, 1, stderr);
    assert.match(stderr, /^Cannot start: the xz tool is not installed or not on PATH \(install the xz-utils package\)/);
    assert.equal(await exists(dataDir), false, "DATA_DIR was created");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("DATA_DIR defaults to ./data, or ./data-demo with DEMO=1; a set DATA_DIR wins", () => {
  assert.equal(parseConfig({}).DATA_DIR, "./data");
  assert.equal(parseConfig({ DEMO: "1" }).DATA_DIR, "./data-demo");
  assert.equal(parseConfig({ DEMO: "1", DATA_DIR: "/srv/demo" }).DATA_DIR, "/srv/demo");
});

Deno.test("deno task demo honours DATA_DIR and PORT from the environment", async () => {
  const parent = await Deno.makeTempDir({ prefix: "demo-task-" });
  const dataDir = join(parent, "demo");
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "demo"],
    cwd: ROOT,
    env: { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const decoder = new TextDecoder();
  const pumps = Promise.all([child.stdout, child.stderr].map(async (stream) => {
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  }));
  try {
    const deadline = Date.now() + 120_000;
    while (!out.includes("Listening on") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, new RegExp(`Listening on http://127\\.0\\.0\\.1:${port}/`));
    assert.ok(await exists(join(dataDir, "console.sqlite3")), out);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "admin@example.com", password: "demo-password" }),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await pumps;
    await Deno.remove(parent, { recursive: true });
    assert.equal(status.code, 0, out);
  }
});
