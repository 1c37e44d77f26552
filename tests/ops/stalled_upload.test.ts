/**
 * A client that stops sending an upload's body (docs/REQUIREMENTS.md §15): after BODY_IDLE_SECONDS of silence the server aborts
 * it, answers 408 and removes the partial file; the server keeps serving meanwhile. (Stalled headers: the server's
 * front drops them, tests/ops/slow_clients.test.ts; behind the bundled proxy, nginx does too, tests/ops/proxy.test.ts.)
 */
import assert from "node:assert/strict";
import { listFiles, startServer } from "../../testing/server.ts";
import { fakeXz, heldUpload, waitForTempFile } from "./helpers.ts";

Deno.test("an upload body idle for BODY_IDLE_SECONDS is aborted with 408 and its temp file removed", async () => {
  await using srv = await startServer({ env: { BODY_IDLE_SECONDS: "1" } });
  const api = await srv.login();
  const held = heldUpload(`${srv.url}/api/v1/device_firmwares`, api.token, "stalled.xz", fakeXz(1 << 20));
  await waitForTempFile(srv.dataDir);
  const started = Date.now();
  const res = await held.response;
  const waited = Date.now() - started;
  assert.equal(res.status, 408);
  const body = await res.json();
  assert.equal(body.error, "request_timeout");
  assert.match(body.msg, /sent nothing for 1 s/);
  assert.ok(waited < 5_000, `answered after ${waited} ms`);
  assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
  assert.deepEqual(await api.listFirmwares(), []);
  held.release();
});
