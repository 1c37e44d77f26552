/**
 * Staged rollouts on two replicas of one PostgreSQL database (docs/REQUIREMENTS.md §10, §13): status reports arrive at both at
 * once; the counts lose none, and a stage advances exactly once (the decision is taken under the rollout's row lock,
 * and the advance is conditional on the stage it leaves), whichever replica received the last report.
 */
import assert from "node:assert/strict";
import { keysState } from "../../server/db/stores/firmware_keys.ts";
import { postgresEngine } from "../../server/db/postgres/runner.ts";
import { connect } from "../../server/db/postgres/open.ts";
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
    // One point per minute, the minute's last state: the stages only move forward and end at the last one (a minute
    // that saw stage 0 end holds stage 1, so stage 0 shows only when a minute ended inside it).
    const stages = (await api.rolloutHistory(r._id)).map((p) => p.stage);
    assert.deepEqual(stages, [...stages].sort(), `history's stages: ${stages}`);
    assert.ok(stages.every((s) => s === 0 || s === 1) && stages.at(-1) === 1, `history's stages: ${stages}`);
  } finally {
    await Promise.all(servers.map((s) => s[Symbol.asyncDispose]()));
  }
});

Deno.test("replicas: the kept firmware keys agree with config after stages move beside check-ins and pins", async () => {
  const url = await testDatabaseUrl();
  const servers = await Promise.all([0, 1].map(() => startServer({ env: { DATABASE_URL: url, LOG_LEVEL: "quiet" } })));
  const db = connect({ url, poolSize: 1 });
  try {
    const api = await servers[0].login();
    const apiB = await servers[1].login();
    const dir = await Deno.makeTempDir({ prefix: "rollout-keys-" });
    const v2 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-2.xz", "two")));
    const v3 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-3.xz", "three")));
    const device = (i: number, id: string) =>
      new DeviceClient(id, { baseUrl: servers[i % 2].url, apiKey: DEVICE_API_KEY });
    const ids = Array.from({ length: 160 }, (_, i) => `key-${String(i).padStart(3, "0")}`);
    await Promise.all(ids.map((id, i) => device(i, id).checkin({ versionInfo: { app: "1", os: "1", channels: [] } })));
    let r = await api.createRollout({ name: "keys", firmwareId: v2._id, productTypeId: null, stages: [25, 50, 100] });
    r = await api.rolloutAction(r._id, "start");

    // At once, on both replicas: every device of the stages reports (the stages advance automatically), new devices
    // check in, devices are pinned and unpinned, and firmware views are read (each read may start a sync).
    const fresh = Array.from({ length: 40 }, (_, i) => `key-new-${i}`);
    const report = async (i: number, id: string) => {
      for (let round = 0; round < 6; round++) {
        const config = await device(i, id).config();
        if (config.firmware?._id !== v2._id) return;
        // A pin made meanwhile changes the configuration: that report is refused (409), as it should be.
        await device(i + 1, id).status({ firmwareId: v2._id, state: "installed" }).catch((err) => {
          if (err?.status !== 409) throw err;
        });
      }
    };
    const pins = ids.filter((_, i) => i % 17 === 3);
    await Promise.all([
      ...ids.map((id, i) => report(i, id)),
      ...fresh.map((id, i) => device(i, id).checkin({ versionInfo: { app: "1", os: "1", channels: [] } })),
      ...pins.map((deviceId, i) => [api, apiB][i % 2].patchDevice({ deviceId, firmware: v3._id })),
      ...Array.from({ length: 20 }, (_, i) => [api, apiB][i % 2].listDevices({ firmware: v2._id })),
      // the operator moves the stages too (a stage whose pinned devices never report would never complete)
      (async () => {
        for (const a of [apiB, api]) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          await a.rolloutAction(r._id, "advance").catch((err) => {
            if (err?.status !== 409) throw err;
          });
        }
      })(),
    ]);
    await api.patchDevice({ deviceId: pins[0], firmware: null });
    for (const id of fresh) await report(0, id);

    // The replicas' own syncs catch the keys up (kicked by these reads); then the kept columns answer the filters.
    const current = async () => {
      const [{ product }] = await db`SELECT product FROM firmware_keys`;
      return product !== null && (await postgresEngine(db).run(keysState(product))).current;
    };
    for (let t = 0; !(await current()); t++) {
      assert.ok(t < 100, "the keys are synced within 10 s");
      await Promise.all([api, apiB].map((a) => a.listDevices({ firmware: v2._id })));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const offered = new Map<string | null, string[]>();
    for (const [i, id] of [...ids, ...fresh].sort().entries()) {
      const fw = (await device(i, id).config()).firmware?._id ?? null;
      offered.set(fw, [...(offered.get(fw) ?? []), id]);
    }
    const listed = async (firmware: string) => {
      const out: string[] = [];
      for (let page = 0;; page++) {
        const p = await apiB.listDevices({ firmware, rowsPerPage: 100, page });
        out.push(...p.data.map((d) => d.deviceId));
        if (out.length >= p.total) return out;
      }
    };
    assert.ok(await current(), "still current: the filters below read the kept keys");
    assert.deepEqual(await listed(v2._id), offered.get(v2._id) ?? [], "firmware = the rollout's");
    assert.deepEqual(await listed(v3._id), offered.get(v3._id) ?? [], "firmware = the pinned one");
    assert.deepEqual(await listed("default"), offered.get(null) ?? [], "the default (none set)");
    assert.ok((offered.get(v2._id) ?? []).length > 100, "the rollout holds most devices");
    const overview = await api.overview();
    assert.deepEqual(
      new Map(overview.firmwares.map((f) => [f._id, f.devices])),
      new Map([...offered].map(([fw, list]) => [fw, list.length])),
      "the overview counts the kept keys",
    );
  } catch (err) {
    for (const s of servers) console.error(s.output().split("\n").filter((l) => /ERROR|WARN/.test(l)).join("\n"));
    throw err;
  } finally {
    await db.end();
    await Promise.all(servers.map((s) => s[Symbol.asyncDispose]()));
  }
});
