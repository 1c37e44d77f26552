/** The test harness's PostgreSQL: missing binaries fail the run with a message naming the package, never a skip. */
import assert from "node:assert/strict";
import { postgresBinDir, PostgresMissingError } from "../../testing/postgres.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("harness: no PostgreSQL binaries is an error naming the package `postgresql`", () => {
  assert.throws(() => postgresBinDir(["/nonexistent/bin"]), (err: unknown) => {
    assert.ok(err instanceof PostgresMissingError);
    assert.match(err.message, /install the Debian package `postgresql`/);
    return true;
  });
});

Deno.test("harness: deno task test without PostgreSQL fails the run, naming the package", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/test.ts", "tests/postgres/harness.test.ts", "--filter=is an error naming"],
    cwd: ROOT,
    env: { POSTGRES_BIN_DIR: "/nonexistent/bin" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 1, text);
  assert.match(text, /!!! PostgreSQL is not installed .*install the Debian package `postgresql`/);
});
