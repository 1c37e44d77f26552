import assert from "node:assert/strict";
import { join } from "node:path";
import { listFiles, startServer } from "../../testing/server.ts";
import { dumpDatabase, fakePng, fakeXz, heldUpload, makeImportFile, sha256Hex, waitForTempFile } from "./helpers.ts";

Deno.test("start-up removes temp leftovers and firmware files no record names", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-ops-" });
  {
    await using srv = await startServer({ dataDir, keepData: true });
    assert.equal(await srv.stop("SIGTERM"), 0);
  }
  await Deno.writeTextFile(join(dataDir, "tmp", "abc.part"), "half an upload");
  await Deno.mkdir(join(dataDir, "tmp", "restore"));
  await Deno.writeFile(join(dataDir, "firmwares", "0123456789abcdef0123456789abcdef.xz"), fakeXz(1024));
  const before = dumpDatabase(join(dataDir, "console.sqlite3"));

  await using srv = await startServer({ dataDir });
  assert.deepEqual(await listFiles(join(dataDir, "tmp")), []);
  assert.deepEqual(await listFiles(join(dataDir, "firmwares")), []);
  assert.match(srv.output(), /Removed 2 temp file\(s\)/);
  assert.match(srv.output(), /Removed 1 firmware file\(s\) with no firmware record/);
  assert.deepEqual(await (await srv.login()).listFirmwares(), []);
  assert.deepEqual(dumpDatabase(join(dataDir, "console.sqlite3")), before);
});

Deno.test("SIGKILL during a firmware upload: after a restart no partial firmware, no temp file, same database", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-ops-" });
  const kept = fakeXz(100 * 1024);
  let firmwaresBefore: unknown, filesBefore: string[], dbBefore: Record<string, string[]>;
  {
    await using srv = await startServer({ dataDir, keepData: true });
    const api = await srv.login();
    await api.uploadFirmware(new File([kept as Uint8Array<ArrayBuffer>], "kept-1.0.xz"));
    firmwaresBefore = await api.listFirmwares();
    filesBefore = await listFiles(join(dataDir, "firmwares"));
    dbBefore = dumpDatabase(join(dataDir, "console.sqlite3"));

    heldUpload(`${srv.url}/api/v1/device_firmwares`, api.token, "killed-2.0.xz", fakeXz(1024 * 1024));
    assert.equal((await waitForTempFile(dataDir)).length, 1, "the upload is in flight when the server dies");
    await srv.stop("SIGKILL");
    assert.equal((await listFiles(join(dataDir, "tmp"))).length, 1, "the killed server left its temp file");
  }
  await using srv = await startServer({ dataDir });
  const api = await srv.login();
  assert.deepEqual(await api.listFirmwares(), firmwaresBefore);
  assert.deepEqual(await listFiles(join(dataDir, "firmwares")), filesBefore);
  assert.deepEqual(await listFiles(join(dataDir, "tmp")), []);
  assert.deepEqual(dumpDatabase(join(dataDir, "console.sqlite3")), dbBefore);
  const id = (firmwaresBefore as { _id: string }[])[0]._id;
  const bytes = new Uint8Array(await (await api.firmwareFile(id)).arrayBuffer());
  assert.equal(await sha256Hex(bytes), await sha256Hex(kept));
});

Deno.test("SIGKILL during a treatment import: after a restart no temp file and the same database", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-ops-" });
  const work = await Deno.makeTempDir({ prefix: "console-ops-files-" });
  try {
    let treatmentsBefore: unknown, dbBefore: Record<string, string[]>;
    {
      await using srv = await startServer({ dataDir, keepData: true });
      const api = await srv.login();
      const first = makeImportFile(join(work, "first.sqlite3"), [
        { name: "Back pain", category: "pain", phases: [{ duration: 60, channels: [10, 12] }] },
        { name: "Knee", category: null, phases: [{ duration: 30, channels: [5] }, { duration: 90, channels: [6] }] },
      ]);
      const data = await Deno.readFile(first);
      assert.equal((await api.importTreatments(new File([data], "first.sqlite3"))).created, 2);
      treatmentsBefore = await api.listTreatments();
      dbBefore = dumpDatabase(join(dataDir, "console.sqlite3"));

      // The same names with other values plus new ones: had it been applied, the dump would differ.
      const second = makeImportFile(
        join(work, "second.sqlite3"),
        [
          { name: "Back pain", category: "changed", phases: [{ duration: 1, channels: [1] }] },
          ...Array.from({ length: 200 }, (_, i) => ({
            name: `Bulk ${i}`,
            phases: [{ duration: 10, channels: [1, 2, 3, 4] }],
            images: [fakePng(4096)],
          })),
        ],
      );
      const bytes = await Deno.readFile(second);
      heldUpload(`${srv.url}/api/v1/treatments/import`, api.token, "second.sqlite3", bytes, bytes.length >> 1);
      assert.equal((await waitForTempFile(dataDir)).length, 1, "the import is in flight when the server dies");
      await srv.stop("SIGKILL");
    }
    await using srv = await startServer({ dataDir });
    const api = await srv.login();
    assert.deepEqual(await api.listTreatments(), treatmentsBefore);
    assert.deepEqual(await listFiles(join(dataDir, "tmp")), []);
    assert.deepEqual(dumpDatabase(join(dataDir, "console.sqlite3")), dbBefore);
  } finally {
    await Deno.remove(work, { recursive: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {}); // the last server removed it
  }
});

Deno.test("SIGKILL at any moment of a fully sent import: after a restart the import is all there or not at all", async () => {
  const work = await Deno.makeTempDir({ prefix: "console-ops-files-" });
  try {
    const file = makeImportFile(
      join(work, "big.sqlite3"),
      Array.from({ length: 1000 }, (_, i) => ({ name: `T${i}`, phases: [{ duration: 5, channels: [1, 2] }] })),
    );
    const bytes = await Deno.readFile(file);
    for (const delayMs of [0, 80, 200]) {
      const dataDir = await Deno.makeTempDir({ prefix: "console-ops-" });
      {
        await using srv = await startServer({ dataDir, keepData: true });
        const api = await srv.login();
        const upload = heldUpload(`${srv.url}/api/v1/treatments/import`, api.token, "big.sqlite3", bytes);
        upload.release();
        // A fast machine may finish the whole import before a poll sees its temp file: kill either way.
        await Promise.race([waitForTempFile(dataDir), upload.response]);
        await new Promise((r) => setTimeout(r, delayMs));
        await srv.stop("SIGKILL");
      }
      await using srv = await startServer({ dataDir });
      const count = (await (await srv.login()).listTreatments()).length;
      assert.ok(count === 0 || count === 1000, `after a kill at ${delayMs} ms: ${count} treatments`);
      assert.deepEqual(await listFiles(join(dataDir, "tmp")), []);
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
