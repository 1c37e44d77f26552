/**
 * A check-in or DDI poll that changes nothing leaves its last-seen time to the next batch (docs/DECISIONS.md, "Polls
 * that change nothing cost no write"): a clean shutdown writes what the server still held, so a restart finds it.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { DdiDevice } from "../../testing/ddi.ts";
import { DEVICE_API_KEY, startServer } from "../../testing/server.ts";

const VERSION = { app: "2.4.1", os: "linux-6.1", channels: [] };

Deno.test("check-in last-seen: a clean shutdown writes the times still held; a restart reads them", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "console-test-" });
  let before: (string | null)[];
  let after: (string | null)[];
  {
    await using srv = await startServer({ dataDir, keepData: true, env: { LOG_LEVEL: "quiet" } });
    const api = await srv.login();
    const dev = new DeviceClient("dev-1", { baseUrl: srv.url, apiKey: DEVICE_API_KEY });
    const ddi = new DdiDevice(srv.url, "ddi-1", `GatewayToken ${DEVICE_API_KEY}`);
    await dev.checkin({ versionInfo: VERSION });
    assert.equal((await ddi.poll()).status, 200);
    before = [(await api.getDevice("dev-1")).lastLoggedIn, (await api.getDevice("ddi-1")).lastLoggedIn];
    assert.ok(before.every((t) => t !== null), "a first check-in and a first poll are written at once");
    await new Promise((r) => setTimeout(r, 5));
    await dev.checkin({ versionInfo: VERSION });
    assert.equal((await ddi.poll()).status, 200);
    assert.equal(await srv.stop("SIGTERM"), 0);
  }
  {
    await using srv = await startServer({ dataDir, env: { LOG_LEVEL: "quiet" } });
    const api = await srv.login();
    after = [(await api.getDevice("dev-1")).lastLoggedIn, (await api.getDevice("ddi-1")).lastLoggedIn];
  }
  assert.ok(after[0]! > before[0]! && after[1]! > before[1]!, `${before} then ${after}`);
});
