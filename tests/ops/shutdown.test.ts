import assert from "node:assert/strict";
import { listFiles, startServer } from "../../testing/server.ts";
import { fakeXz, heldUpload, sha256Hex, waitForTempFile } from "./helpers.ts";

/** Resolves to the exit code, or rejects when the process is still running after ms. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`${what} after ${ms} ms`)), ms))]);
}

async function stillRunning(p: Promise<number>, ms = 300): Promise<boolean> {
  return await Promise.race([p.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), ms))]);
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} on an idle server: closes the database and exits 0`, async () => {
    await using srv = await startServer();
    const api = await srv.login();
    await api.createProductType("Kept");
    assert.equal(await within(srv.stop(signal), 10_000, "no exit"), 0);
    assert.match(srv.output(), new RegExp(`${signal}: refusing new requests`));
    assert.match(srv.output(), /Stopped\./);
    // A clean close checkpoints the WAL: the database file alone holds everything.
    assert.deepEqual((await listFiles(srv.dataDir)).filter((f) => f.startsWith("console.sqlite3")), [
      "console.sqlite3",
    ]);
  });
}

Deno.test("SIGTERM during an upload: the upload completes, then the server exits 0", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-ops-" });
  const content = fakeXz(512 * 1024);
  {
    await using srv = await startServer({ dataDir, keepData: true });
    const api = await srv.login();
    const upload = heldUpload(`${srv.url}/api/v1/device_firmwares`, api.token, "slow-1.0.xz", content);
    await waitForTempFile(dataDir);

    const exited = srv.stop("SIGTERM");
    assert.ok(await stillRunning(exited), "the server must wait for the request in flight");
    const refused = await fetch(`${srv.url}/healthz`);
    assert.equal(refused.status, 503, "new requests are refused once stopping");
    assert.equal((await refused.json()).error, "unavailable");

    upload.release();
    const res = await within(upload.response, 10_000, "no answer");
    assert.equal(res.status, 201, await res.clone().text());
    const fw = await res.json();
    assert.equal(fw.name, "slow-1.0.xz");
    assert.equal(await within(exited, 10_000, "no exit"), 0);
    assert.deepEqual(await listFiles(`${dataDir}/tmp`), []);
  }
  await using again = await startServer({ dataDir });
  const api = await again.login();
  const list = await api.listFirmwares();
  assert.deepEqual(list.map((f) => f.name), ["slow-1.0.xz"]);
  const bytes = new Uint8Array(await (await api.firmwareFile(list[0]._id)).arrayBuffer());
  assert.equal(await sha256Hex(bytes), await sha256Hex(content));
});

Deno.test("SIGTERM with an upload stalled past the grace period: discarded, no partial file, exit 0", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-ops-" });
  {
    await using srv = await startServer({ dataDir, keepData: true, env: { SHUTDOWN_GRACE_SECONDS: "1" } });
    const api = await srv.login();
    const upload = heldUpload(`${srv.url}/api/v1/device_firmwares`, api.token, "stalled.xz", fakeXz(256 * 1024));
    assert.equal((await waitForTempFile(dataDir)).length, 1);

    assert.equal(await within(srv.stop("SIGTERM"), 10_000, "no exit"), 0);
    assert.match(srv.output(), /Grace period over/);
    assert.match(srv.output(), /Discarded 1 unfinished upload/);
    await assert.rejects(upload.response.then((r) => r.text()));
    assert.deepEqual(await listFiles(`${dataDir}/tmp`), []);
    assert.deepEqual(await listFiles(`${dataDir}/firmwares`), []);
  }
  await using again = await startServer({ dataDir });
  assert.deepEqual(await (await again.login()).listFirmwares(), []);
});
