/**
 * Files are private: DATA_DIR and its directories are 0700, the database, its -wal and -shm files, the signing secret
 * and stored firmware 0600, whatever the umask; a DATA_DIR with looser modes is tightened at start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { makeNamedImportFile } from "../../testing/import_db.ts";
import { startServer } from "../../testing/server.ts";

/** Every file and directory under dir (itself included) with its permission bits. */
async function modes(dir: string, rel = "."): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const path = join(dir, rel);
  const stat = await Deno.lstat(path);
  out[stat.isDirectory ? `${rel}/` : rel] = (stat.mode! & 0o777).toString(8).padStart(4, "0");
  if (stat.isDirectory) {
    for await (const entry of Deno.readDir(path)) Object.assign(out, await modes(dir, join(rel, entry.name)));
  }
  return out;
}

/** Each path's mode must be 0700 for a directory and 0600 for a file. */
function assertPrivate(found: Record<string, string>) {
  const wrong = Object.entries(found).filter(([path, mode]) => mode !== (path.endsWith("/") ? "0700" : "0600"));
  assert.deepEqual(wrong, [], JSON.stringify(found, null, 1));
}

Deno.test("a fresh DATA_DIR is private even under umask 000: directories 0700, every file 0600", async () => {
  const parent = await Deno.makeTempDir({ prefix: "console-modes-" });
  try {
    const dataDir = join(parent, "data");
    await using srv = await startServer({ dataDir, umask: "000" });
    const api = await srv.login();
    // Everything that writes into DATA_DIR: the database (and its WAL), a firmware, an import through tmp/.
    await api.uploadFirmware(await fileSource(await makeXzFile(parent, "fw-1.xz")));
    await api.importTreatments(await fileSource(makeNamedImportFile(join(parent, "t.sqlite3"), ["Knee"])));
    await api.createProductType("Private");
    const found = await modes(dataDir);
    for (const path of ["./", "firmwares/", "tmp/", "console.sqlite3", "console.sqlite3-wal", "console.sqlite3-shm"]) {
      assert.ok(path in found, `${path} in ${JSON.stringify(found)}`);
    }
    assert.ok("jwt_secret" in found);
    assert.ok(Object.keys(found).some((p) => p.startsWith("firmwares/") && p.endsWith(".xz")), JSON.stringify(found));
    assertPrivate(found);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("a DATA_DIR left readable by others is tightened at start; the data is kept", async () => {
  const parent = await Deno.makeTempDir({ prefix: "console-modes-" });
  try {
    const dataDir = join(parent, "data");
    let before;
    {
      await using srv = await startServer({ dataDir, keepData: true });
      const api = await srv.login();
      await api.uploadFirmware(await fileSource(await makeXzFile(parent, "fw-loose.xz")));
      before = await api.listFirmwares();
      await srv.stop("SIGKILL"); // the -wal and -shm files stay behind, as after a crash
    }
    // As an older release (or a copy made under umask 022) left them.
    const loose = await modes(dataDir);
    for (const path of Object.keys(loose)) await Deno.chmod(join(dataDir, path), path.endsWith("/") ? 0o755 : 0o644);
    assert.ok(["console.sqlite3-wal", "console.sqlite3-shm", "jwt_secret"].every((p) => p in loose));

    await using srv = await startServer({ dataDir, keepData: true });
    const api = await srv.login();
    assert.deepEqual(await api.listFirmwares(), before);
    const found = await modes(dataDir);
    // Stored firmware is not tightened (not secret, and out of reach in the 0700 firmwares/ directory).
    const firmware = Object.keys(found).filter((p) => p.startsWith("firmwares/") && p.endsWith(".xz"));
    assert.equal(firmware.length, 1);
    for (const path of firmware) delete found[path];
    assertPrivate(found);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
