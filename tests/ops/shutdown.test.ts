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

Deno.test("copies of the stop signal at once keep the grace period; a signal seconds later stops without waiting", async () => {
  await using srv = await startServer({ env: { SHUTDOWN_GRACE_SECONDS: "60" } });
  const api = await srv.login();
  const upload = heldUpload(`${srv.url}/api/v1/device_firmwares`, api.token, "copies.xz", fakeXz(256 * 1024));
  await waitForTempFile(srv.dataDir);

  // What a Ctrl-C behind wrappers (or `timeout`, or systemd's control-group stop) delivers: one stop, several copies.
  for (const signal of ["SIGINT", "SIGINT", "SIGTERM"] as const) srv.process.kill(signal);
  const exited = srv.process.status;
  assert.ok(await stillRunning(exited.then((s) => s.code), 1_000), "copies must not skip the grace period");
  assert.equal(srv.output().match(/refusing new requests/g)?.length, 1, srv.output());
  assert.match(srv.output(), /again at once: a copy of the same stop/); // two SIGINTs at once may merge into one
  assert.doesNotMatch(srv.output(), /again: stopping without waiting/);

  await new Promise((r) => setTimeout(r, 2_500)); // past COPY_WINDOW_MS (2 s): now the operator insists
  const forced = performance.now();
  assert.equal(await within(srv.stop("SIGTERM"), 10_000, "no exit"), 0);
  console.log(`  a signal 3.5 s after the first: stopped ${Math.round(performance.now() - forced)} ms later`);
  assert.match(srv.output(), /SIGTERM again: stopping without waiting/);
  assert.match(srv.output(), /Discarded 1 unfinished upload/);
  await assert.rejects(upload.response.then((r) => r.text()));
  assert.deepEqual(await srv.storedFirmwares(), []);
});
