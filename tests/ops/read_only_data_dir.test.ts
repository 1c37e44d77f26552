/**
 * A DATA_DIR that holds a database but cannot be written (a volume mounted read-only, or another user's directory)
 * stops the start with one line naming it, not a SQLite stack trace. Made read-only for real: as root, a read-only bind
 * mount in a mount namespace of the server's own (`unshare -m`, else `unshare -rm`); as anyone else, by file modes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const PASSWORD = "a-long-password-0123";

async function output(cmd: string, args: string[], env: Record<string, string>, stdin = "") {
  const child = new Deno.Command(cmd, { args, env, cwd: ROOT, stdin: "piped", stdout: "piped", stderr: "piped" })
    .spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, text: (dec.decode(out.stdout) + dec.decode(out.stderr)).trim() };
}

Deno.test("a read-only DATA_DIR with a database stops the start with one line naming it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-ro-" });
  try {
    const env = {
      DATA_DIR: dataDir,
      PORT: String(20_000 + Math.floor(Math.random() * 20_000)),
      ADMIN_EMAIL: "ops@example.com",
      ADMIN_PASSWORD: PASSWORD,
      DEVICE_API_KEY: "read-only-test-device-key-0123",
      LOG_LEVEL: "quiet",
    };
    const made = await output(
      Deno.execPath(),
      ["run", "-A", "server/user.ts", "add", "ops@example.com"],
      env,
      PASSWORD,
    );
    assert.equal(made.code, 0, made.text);
    for (const dir of ["firmwares", "tmp"]) await Deno.mkdir(join(dataDir, dir), { mode: 0o700 });
    const server = [Deno.execPath(), "run", "-A", "server/main.ts"].map((a) => `'${a}'`).join(" ");

    let started: { code: number; text: string };
    if (Deno.uid() !== 0) {
      for (const entry of Deno.readDirSync(dataDir)) if (entry.isFile) Deno.chmodSync(join(dataDir, entry.name), 0o400);
      for (const dir of ["firmwares", "tmp", ""]) Deno.chmodSync(join(dataDir, dir), 0o500);
      started = await output(Deno.execPath(), ["run", "-A", "server/main.ts"], env);
    } else {
      const script =
        `mount --bind '${dataDir}' '${dataDir}' && mount -o remount,bind,ro '${dataDir}' && exec ${server}`;
      started = await output("unshare", ["-m", "sh", "-c", script], env);
      if (/unshare failed|Operation not permitted/.test(started.text)) {
        started = await output("unshare", ["-rm", "sh", "-c", script], env);
      }
      assert.doesNotMatch(started.text, /unshare failed|mount: /, "as root this test needs `unshare -m` or `-rm`");
    }
    assert.equal(started.code, 1, started.text);
    const lines = started.text.split("\n");
    assert.equal(lines.length, 1, `one line, not:\n${started.text}`);
    assert.match(lines[0], new RegExp(`DATA_DIR ${dataDir} cannot be (used|written)`));
    assert.doesNotMatch(lines[0], /\bat \w+ \(|Uncaught/);
  } finally {
    Deno.chmodSync(dataDir, 0o700);
    for (const dir of ["firmwares", "tmp"]) Deno.chmodSync(join(dataDir, dir), 0o700);
    await Deno.remove(dataDir, { recursive: true });
  }
});
