import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../../testing/server.ts";
import { MIGRATIONS } from "../../server/db/migrations/sqlite.ts";
import { setUserVersion, userVersion } from "../../testing/sqlite_file.ts";

Deno.test("a database migrated by a newer release is refused with one clear line, and left untouched", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-ops-" });
  try {
    {
      await using srv = await startServer({ dataDir, keepData: true });
      assert.equal(await srv.stop("SIGTERM"), 0);
    }
    const file = join(dataDir, "console.sqlite3");
    setUserVersion(file, MIGRATIONS.length + 1);

    const err = await startServer({ dataDir, keepData: true }).then(() => null, (e: Error) => e);
    assert.ok(err, "the server must not start");
    assert.match(err.message, /exited with 1/);
    assert.match(err.message, new RegExp(`schema version ${MIGRATIONS.length + 1}, newer than this release knows`));

    assert.equal(userVersion(file), MIGRATIONS.length + 1);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("an unusable DATA_DIR stops the start with one line naming it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "console-ops-" });
  try {
    const file = join(dir, "a-file");
    await Deno.writeTextFile(file, "not a directory");
    const err = await startServer({ dataDir: file, keepData: true }).then(() => null, (e: Error) => e);
    assert.ok(err);
    assert.match(err.message, /Invalid configuration: DATA_DIR .*a-file cannot be used/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
