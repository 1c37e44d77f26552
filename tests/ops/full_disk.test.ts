/**
 * A full DATA_DIR (docs/REQUIREMENTS.md §15): a small tmpfs as DATA_DIR, filled up under a running server. Uploads and imports are
 * 507 with nothing partial left, no write is a 500, the server stays up and /healthz says "storage":"full"; writes work
 * again once space is freed; a start on a full disk ends with one line. Mounting needs root (CI runs as root); where it
 * is impossible the test says so in its output and checks nothing else.
 */
import assert from "node:assert/strict";
import { ApiError } from "../../shared/client.ts";
import { listFiles, startServer } from "../../testing/server.ts";
import { bytesSource } from "../../testing/files.ts";
import { fakeXz, makeImportFile } from "./helpers.ts";

const MiB = 1 << 20;

async function mountTmpfs(sizeMiB: number): Promise<string | null> {
  const dir = await Deno.makeTempDir({ prefix: "full-disk-" });
  const out = await new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", `size=${sizeMiB}m`, "tmpfs", dir] })
    .output().catch(() => null);
  if (!out?.success) {
    await Deno.remove(dir);
    return null;
  }
  return dir;
}

async function unmount(dir: string) {
  await new Deno.Command("umount", { args: [dir] }).output();
  await Deno.remove(dir);
}

/** Fills the file system of `dir` with a file until writes fail (ENOSPC). */
async function fill(dir: string): Promise<string> {
  const path = `${dir}/filler`;
  using file = await Deno.open(path, { write: true, create: true });
  for (const size of [MiB, 64 * 1024, 4096, 512, 1]) {
    const buf = new Uint8Array(size);
    for (;;) {
      try {
        await file.write(buf);
      } catch {
        break;
      }
    }
  }
  return path;
}

const status = (p: Promise<unknown>) => p.then(() => 200, (e) => e instanceof ApiError ? e.status ?? 0 : -1);

Deno.test("a full DATA_DIR: 507 for uploads, imports and writes, the server stays up and recovers", async (t) => {
  const mount = await mountTmpfs(48);
  if (!mount) {
    console.log("NOT RUN: mounting a tmpfs needs root (mount -t tmpfs); the full-disk test checked nothing here.");
    return;
  }
  try {
    const dataDir = `${mount}/data`;
    await using srv = await startServer({ dataDir, keepData: true });
    const api = await srv.login();
    const importFile = makeImportFile(`${await Deno.makeTempDir()}/t.sqlite3`, [
      { name: "Full disk", phases: [{ duration: 10, channels: [1, 2] }] },
    ]);
    const firmware = (name: string) => bytesSource(name, fakeXz(256 * 1024));
    await api.uploadFirmware(firmware("before.xz"));
    const devices = await api.listDevices().catch(() => null);

    const filler = await fill(mount);
    await t.step("uploads and imports answer 507 and leave nothing behind", async () => {
      for (const name of ["tiny.xz", "second.xz"]) {
        const err = await api.uploadFirmware(bytesSource(name, fakeXz(4096))).then(() => null, (e) => e);
        assert.ok(err instanceof ApiError && err.status === 507, `upload on a full disk: ${err}`);
        assert.equal(err.code, "insufficient_storage");
      }
      const imported = await status(api.importTreatments(await fileSourceOf(importFile)));
      assert.equal(imported, 507, "import on a full disk");
      assert.deepEqual(await listFiles(`${dataDir}/tmp`), []);
      assert.deepEqual((await api.listFirmwares()).map((f) => f.name), ["before.xz"]);
    });

    await t.step("no write is a 500; /healthz is up and says the storage is full", async () => {
      const answers = [];
      for (let i = 0; i < 20; i++) {
        answers.push(await status(api.createProductType(`Full ${i}`)));
      }
      assert.ok(answers.every((s) => s === 200 || s === 507), `product type writes: ${answers}`);
      assert.ok(answers.includes(507), `no database write was refused: ${answers}`);
      const health = await srv.fetch("/healthz");
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: "ok", storage: "full" });
      assert.match(srv.output(), /507, no space left in DATA_DIR/);
      assert.doesNotMatch(srv.output(), /Uncaught| 500 |cannot rollback/);
      if (devices) assert.ok(await api.listDevices());
    });

    await t.step("once space is freed, writes work again", async () => {
      await Deno.remove(filler);
      assert.deepEqual(await (await srv.fetch("/healthz")).json(), { status: "ok", storage: "ok" });
      const fw = await api.uploadFirmware(firmware("after.xz"));
      assert.equal(fw.name, "after.xz");
      assert.equal((await api.importTreatments(await fileSourceOf(importFile))).created, 1);
    });

    await t.step("a start on a full disk ends with one line", async () => {
      await fill(mount);
      const fresh = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "server/main.ts"],
        cwd: new URL("../../", import.meta.url).pathname,
        env: { PORT: "0", DATA_DIR: `${mount}/fresh`, LOG_LEVEL: "info", DEVICE_API_KEY: "full-disk-key-0123456789" },
        stdout: "piped",
        stderr: "piped",
      });
      const out = await fresh.output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 1, text);
      assert.match(
        text,
        /^Cannot start: the disk of DATA_DIR .* is full .*free space there and start again\.\n$/,
        text,
      );
    });
  } finally {
    await unmount(mount);
  }
});

async function fileSourceOf(path: string) {
  const bytes = await Deno.readFile(path);
  return bytesSource(path.split("/").pop()!, bytes);
}
