/**
 * Staged rollouts on two replicas of one PostgreSQL database (CONTRACT §10, §13): status reports arrive at both at
 * once; the counts lose none, and a stage advances exactly once (the decision is taken under the rollout's row lock,
 * and the advance is conditional on the stage it leaves), whichever replica received the last report.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { testDatabaseUrl } from "../../testing/postgres.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

const DEVICES = 240;

Deno.test("replicas: status reports to both replicas at once advance each stage once and lose no count", async () => {
  const url = await testDatabaseUrl();
  const servers = await Promise.all([0, 1].map(() => startServer({ env: { DATABASE_URL: url, LOG_LEVEL: "quiet" } })));
  try {
    const [a, b] = servers;
    const api = await a.login();
    const dir = await Deno.makeTempDir({ prefix: "rollout-replicas-" });
    const v2 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-2.xz", "two")));
    const device = (srv: TestServer, id: string) => new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY });
    const ids = Array.from({ length: DEVICES }, (_, i) => `rep-${i}`);
    for (let i = 0; i < ids.length; i += 40) {
      await Promise.all(
        ids.slice(i, i + 40).map((id, j) =>
          device(servers[j % 2], id).checkin({ versionInfo: { app: "1", os: "1", channels: [] } })
        ),
      );
    }
    let r = await api.createRollout({
      name: "two replicas",
      firmwareId: v2._id,
      productTypeId: null,
      stages: [50, 100],
    });
    r = await api.rolloutAction(r._id, "start");
    assert.equal(r.counts.targeted, DEVICES);

    for (const stage of [0, 1]) {
      assert.equal(r.stage, stage);
      const pending = await api.rolloutDevices(r._id, { state: "pending", rowsPerPage: 100, page: 0 });
      const all = [...pending.data];
      for (let page = 1; all.length < pending.total; page++) {
        all.push(...(await api.rolloutDevices(r._id, { state: "pending", rowsPerPage: 100, page })).data);
      }
      assert.equal(all.length, r.counts.inStage - r.counts.installed);
      // Every pending device reports twice (downloading, then installed), alternately to A and B, all at once.
      await Promise.all(all.map(async (d, i) => {
        await device(servers[i % 2], d.deviceId).status({ firmwareId: v2._id, state: "downloading" });
        await device(servers[(i + 1) % 2], d.deviceId).status({ firmwareId: v2._id, state: "installed" });
      }));
      const fromB = await (await b.login()).getRollout(r._id);
      r = await api.getRollout(r._id);
      assert.deepEqual(fromB, r);
      assert.equal(r.counts.downloading, 0);
      if (stage === 0) {
        assert.equal(r.state, "running");
        assert.equal(r.stage, 1, "the first stage advanced once, to the next one");
        assert.equal(r.counts.inStage, DEVICES);
      }
    }
    assert.equal(r.state, "finished");
    assert.equal(r.counts.installed, DEVICES);
    // The trail says the same: one automatic advance per stage left, from stage 0 and then from stage 1 (finishing).
    const advances = (await api.listAudit({ action: "rollout.auto_advance", targetId: r._id, rowsPerPage: 100 })).data;
    assert.deepEqual(advances.map((e) => e.details.fromStage).sort(), [0, 1]);
    const history = await api.rolloutHistory(r._id);
    assert.deepEqual([...new Set(history.map((p) => p.stage))], history.length > 1 ? [0, 1] : [1]);
  } finally {
    await Promise.all(servers.map((s) => s[Symbol.asyncDispose]()));
  }
});
