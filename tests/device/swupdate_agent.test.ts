/**
 * Debian's real, unmodified SWUpdate (2022.12, suricatta hawkBit mode) against the real server over hawkBit DDI
 * (CONTRACT §18), with signed images built at test time (testing/swu.ts), each agent in its own TMPDIR, polls
 * triggered over its IPC socket (testing/swupdate_agent.ts). Three whole cycles:
 *   a. a pinned firmware installed: poll, deploymentBase, HEAD + GET of the exact bytes, feedback, the "reboot"
 *      (`-c 2`) that reports success → `installed`; the file the agent installed holds the image's bytes;
 *   b. an image the agent refuses (made for another hardware revision) in a rollout → `failed` with the agent's
 *      message, counted, and the rollout pauses itself;
 *   c. a rollout cancelled while the agent is downloading its image (over a slow link: testing/slow_link.ts) →
 *      cancelAction, acknowledged by the agent.
 * What the server saw is read from its own request log (LOG_FORMAT=json). Runs on SQLite and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Device } from "../../shared/schemas/device.ts";
import { bytesSource } from "../../testing/files.ts";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";
import { buildSwu, makeSigningKey } from "../../testing/swu.ts";
import { type Agent, type AgentOptions, startAgent } from "../../testing/swupdate_agent.ts";
import { startSlowLink } from "../../testing/slow_link.ts";

const TENANT = "DEFAULT";
const HARDWARE = "therapy-board:1.0";
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Bytes that do not compress or repeat (an image). */
function imageBytes(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

interface Seen {
  method: string;
  path: string;
  status: number;
}

/** The requests the server logged for one device's DDI paths, in order. */
function seenFor(srv: TestServer, deviceId: string): Seen[] {
  const prefix = `/${TENANT}/controller/v1/${deviceId}`;
  const out: Seen[] = [];
  for (const line of srv.output().split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const r = JSON.parse(line);
      if (r.msg === "request" && typeof r.path === "string" && (r.path === prefix || r.path.startsWith(`${prefix}/`))) {
        out.push({ method: r.method, path: r.path.slice(prefix.length) || "/", status: r.status });
      }
    } catch { /* not a JSON line */ }
  }
  return out;
}

/** Polls `probe` until it answers a value (not undefined); throws with `what` and `detail()` after `ms`. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  detail: () => string = () => "",
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

Deno.test("SWUpdate agent over hawkBit DDI: installed through a reboot, refused in a rollout that pauses, cancelled", async (t) => {
  const started = performance.now();
  // DDI_POLL_SECONDS=1: the agents poll every second, and check for a cancel every second while they download.
  await using srv = await startServer({ env: { LOG_FORMAT: "json", DDI_POLL_SECONDS: "1" } });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "swu-agent-" });
  const signer = await makeSigningKey(dir);
  const agents: Agent[] = [];
  const start = async (deviceId: string, more: Partial<AgentOptions> = {}) => {
    const agent = await startAgent({
      url: srv.url,
      deviceId,
      gatewayToken: DEVICE_API_KEY,
      cert: signer.cert,
      hardware: HARDWARE,
      dir: `${dir}/agent-${deviceId}`,
      ...more,
    });
    agents.push(agent);
    return agent;
  };
  const device = (id: string) => api.getDevice(id).catch(() => null);
  /** The first poll registers the device (GatewayToken, as hawkBit does). */
  const registered = async (agent: Agent, id: string) => {
    await agent.trigger();
    return await until(`${id}'s first poll to register it`, async () => (await device(id)) ?? undefined);
  };
  /** What the server saw of a device and the agent's last log lines, for a failure's message. */
  const story = (id: string) => () => {
    const agent = agents.findLast((a) => a.deviceId === id);
    return `the server saw: ${JSON.stringify(seenFor(srv, id))}\nthe agent's log ends:\n${
      agent?.log().slice(-6000) ?? "(no agent)"
    }`;
  };
  const updateState = (id: string, state: string) =>
    until(`${id}'s update state ${state}`, async () => {
      const d = await device(id);
      return d?.update?.state === state ? d as Device : undefined;
    }, story(id));

  try {
    await t.step("a. a pinned firmware: downloaded, installed, confirmed after the reboot (-c 2)", async () => {
      const image = imageBytes(96 * 1024, 1);
      const installTo = `${dir}/a-installed.bin`;
      const swu = await buildSwu({ signer, image, installTo, hardware: ["1.0"], version: "2.0.0" });
      const fw = await api.uploadFirmware(bytesSource("therapy-2.0.0.swu", swu));

      let agent = await start("swu-a");
      const before = await registered(agent, "swu-a");
      assert.equal(before.update, null);
      assert.ok(before.lastLoggedIn, "a poll is a check-in");

      await api.patchDevice({ deviceId: "swu-a", firmware: fw._id });
      await agent.trigger();
      await agent.waitFor(/SWUPDATE successful/);
      await agent.waitFor(/Update successful, executing post-update actions/);
      assert.equal(sha256(await Deno.readFile(installTo)), sha256(image), "the agent installed the image's bytes");
      // Installed, not yet confirmed: the action stays open across the reboot.
      const installing = await updateState("swu-a", "installing");
      assert.equal(installing.update?.firmwareId, fw._id);

      await agent.stop();
      agent = await start("swu-a", { confirm: 2 });
      const installed = await updateState("swu-a", "installed");
      assert.equal(installed.update?.firmwareId, fw._id);
      // Closed: the agent is offered nothing more.
      const from = agent.log().length;
      await agent.trigger();
      await agent.waitFor(/No pending action on server/, { from });
      await agent.stop();

      const seen = seenFor(srv, "swu-a");
      const refused = seen.filter((s) => s.status !== 200 && s.status !== 206);
      assert.deepEqual(refused, [], "every DDI request of the agent answered 200");
      const kinds = seen.map((s) =>
        s.path === "/"
          ? "poll"
          : /^\/deploymentBase\/\d+$/.test(s.path)
          ? "deploymentBase"
          : /^\/deploymentBase\/\d+\/feedback$/.test(s.path)
          ? "feedback"
          : /^\/softwaremodules\/[^/]+\/artifacts\/[^/]+$/.test(s.path)
          ? `${s.method} artifact`
          : `${s.method} ${s.path}`
      );
      for (const k of ["poll", "deploymentBase", "HEAD artifact", "GET artifact", "feedback"]) {
        assert.ok(kinds.includes(k), `the server saw no ${k}: ${kinds.join(", ")}`);
      }
      assert.ok(kinds.indexOf("HEAD artifact") < kinds.lastIndexOf("GET artifact"));
      // The artifact the agent fetched is the stored file, byte for byte.
      const artifact = seen.find((s) => s.method === "GET" && s.path.includes("/artifacts/"))!;
      const res = await fetch(`${srv.url}/${TENANT}/controller/v1/swu-a${artifact.path}`, {
        headers: { Authorization: `GatewayToken ${DEVICE_API_KEY}` },
      });
      assert.equal(res.status, 200);
      assert.equal(sha256(new Uint8Array(await res.arrayBuffer())), sha256(swu));
      console.log(`cycle a: ${seen.length} DDI requests (${kinds.join(", ")})`);
    });

    let refusedRollout = "";
    await t.step(
      "b. an image the agent refuses → failed with its message; the rollout counts it and pauses",
      async () => {
        const image = imageBytes(8 * 1024, 2);
        // Made for revision 9.9: the agent (1.0) refuses it after checking the signature.
        const swu = await buildSwu({ signer, image, installTo: `${dir}/b-installed.bin`, hardware: ["9.9"] });
        const fw = await api.uploadFirmware(bytesSource("therapy-2.1.0.swu", swu));
        const agent = await start("swu-b");
        await registered(agent, "swu-b");

        let rollout = await api.createRollout({
          name: "2.1.0",
          firmwareId: fw._id,
          productTypeId: null,
          stages: [100],
        });
        refusedRollout = rollout._id;
        rollout = await api.rolloutAction(rollout._id, "start");
        assert.equal(rollout.counts.targeted, 1, "swu-a is pinned: only swu-b is targeted");
        await agent.trigger();
        const failed = await updateState("swu-b", "failed");
        assert.equal(failed.update?.firmwareId, fw._id);
        // SWUpdate's closing feedback lists its errors, then "No suitable .swu image found".
        assert.match(failed.update?.message ?? "", /SW not compatible with hardware|No suitable \.swu image found/);
        console.log(`cycle b: the agent's message: ${JSON.stringify(failed.update?.message)}`);
        await agent.waitFor(/SW not compatible with hardware/);
        await until("the rollout to pause", async () => {
          rollout = await api.getRollout(rollout._id);
          return rollout.state === "paused" ? rollout : undefined;
        });
        assert.equal(rollout.counts.failed, 1);
        assert.ok(rollout.pausedReason, "the pause says why");
        assert.equal(await Deno.stat(`${dir}/b-installed.bin`).catch(() => null), null, "nothing installed");
        // Closed by the failure: not offered again.
        const from = agent.log().length;
        await agent.trigger();
        await agent.waitFor(/No pending action on server/, { from });
        await agent.stop();
        assert.deepEqual(seenFor(srv, "swu-b").filter((s) => s.status !== 200 && s.status !== 206), []);
      },
    );

    await t.step("c. a rollout cancelled while the agent downloads → cancelAction acknowledged", async () => {
      await api.rolloutAction(refusedRollout, "cancel");
      // 768 KiB over a link of 48 KiB/s: the download lasts ~16 s unless the cancel stops it.
      const image = imageBytes(768 * 1024, 3);
      const swu = await buildSwu({ signer, image, installTo: `${dir}/c-installed.bin`, hardware: ["1.0"] });
      const fw = await api.uploadFirmware(bytesSource("therapy-2.2.0.swu", swu));
      await using link = await startSlowLink(srv.url, 48 * 1024);
      const agent = await start("swu-c", { url: link.url });
      await registered(agent, "swu-c");
      let rollout = await api.createRollout({ name: "2.2.0", firmwareId: fw._id, productTypeId: null, stages: [100] });
      rollout = await api.rolloutAction(rollout._id, "start");
      await agent.trigger();
      await agent.waitFor(/Total download size/);
      const downloading = performance.now();
      rollout = await api.rolloutAction(rollout._id, "cancel");
      assert.equal(rollout.state, "cancelled");
      await until(
        "the agent's cancel feedback",
        () =>
          Promise.resolve(
            seenFor(srv, "swu-c").find((s) => s.method === "POST" && /^\/cancelAction\/\d+\/feedback$/.test(s.path)),
          ),
        story("swu-c"),
      );
      console.log(`cycle c: cancel acknowledged ${Math.round(performance.now() - downloading)} ms into the download`);
      const seen = seenFor(srv, "swu-c");
      assert.ok(seen.some((s) => s.method === "GET" && /^\/cancelAction\/\d+$/.test(s.path)), "cancelAction read");
      assert.deepEqual(seen.filter((s) => s.status !== 200 && s.status !== 206), [], "all answered 200");
      const from = agent.log().length;
      await agent.trigger();
      await agent.waitFor(/No pending action on server/, { from });
      assert.equal(await Deno.stat(`${dir}/c-installed.bin`).catch(() => null), null, "nothing installed");
      assert.notEqual((await device("swu-c"))?.update?.state, "installed");
      await agent.stop();
    });
  } finally {
    for (const agent of agents) await agent.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    console.log(`SWUpdate agent cycles: ${Math.round(performance.now() - started)} ms`);
  }
});

Deno.test("SWUpdate agent with its own TargetToken (DEVICE_AUTH=token): installed through a reboot", async () => {
  const started = performance.now();
  await using srv = await startServer({
    env: { LOG_FORMAT: "json", DDI_POLL_SECONDS: "1", DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto" },
  });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "swu-agent-token-" });
  const agents: Agent[] = [];
  try {
    const signer = await makeSigningKey(dir);
    // §11: the device enrols with the factory key and gets its own token, which SWUpdate sends as TargetToken.
    const enrolled = await srv.fetch("/api/v1/device/swu-t/enroll", {
      method: "POST",
      token: DEVICE_API_KEY,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ versionInfo: { app: "1.0.0", os: "linux-6.1", channels: [] } }),
    });
    assert.equal(enrolled.status, 201);
    const { token } = await enrolled.json() as { token: string };
    const image = imageBytes(32 * 1024, 4);
    const installTo = `${dir}/t-installed.bin`;
    const swu = await buildSwu({ signer, image, installTo, hardware: ["1.0"], version: "3.0.0" });
    const fw = await api.uploadFirmware(bytesSource("therapy-3.0.0.swu", swu));
    await api.patchDevice({ deviceId: "swu-t", firmware: fw._id });
    const options = {
      url: srv.url,
      deviceId: "swu-t",
      targetToken: token,
      cert: signer.cert,
      hardware: HARDWARE,
      dir: `${dir}/agent`,
    };
    let agent = await startAgent(options);
    agents.push(agent);
    await agent.trigger();
    await agent.waitFor(/Update successful, executing post-update actions/, { timeoutMs: 60_000 });
    assert.equal(sha256(await Deno.readFile(installTo)), sha256(image));
    await agent.stop();
    agent = await startAgent({ ...options, confirm: 2 });
    agents.push(agent);
    const installed = await until("swu-t installed", async () => {
      const d = await api.getDevice("swu-t");
      return d.update?.state === "installed" ? d : undefined;
    }, () => `the server saw: ${JSON.stringify(seenFor(srv, "swu-t"))}\n${agent.log().slice(-4000)}`);
    assert.equal(installed.update?.firmwareId, fw._id);
    const seen = seenFor(srv, "swu-t");
    assert.deepEqual(seen.filter((s) => s.status !== 200 && s.status !== 206), [], "the token is taken everywhere");
    assert.ok(seen.some((s) => s.method === "GET" && s.path.includes("/artifacts/")), "downloaded with its token");
  } finally {
    for (const agent of agents) await agent.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    console.log(`SWUpdate agent, TargetToken: ${Math.round(performance.now() - started)} ms`);
  }
});
