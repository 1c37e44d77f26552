/**
 * Signals are the operator's, not the firmware's (issue #31): a Ctrl-C to the server's process group stops the server
 * once, with its grace period, and a valid upload in flight is stored (its xz check runs in a session of its own); a
 * check killed anyway is a 503, never 422; behind the README's `npx -y deno@… task …`, a SIGTERM to npx stops the
 * server, and a cancelled CLI stores nothing and sets no default. Figures are printed.
 */
import assert from "node:assert/strict";
import { listFiles, startServer } from "../../testing/server.ts";
import { cliEnv } from "../cli/run_cli.ts";
import { fakeXz, heldUpload } from "./helpers.ts";
import { holdingProxy } from "./holding_proxy.ts";
import { childrenOf, groupGone, procInfo, waitFor } from "./processes.ts";

const NPX_DENO = ["npx", "-y", "deno@2.9.6"];
const ROOT = new URL("../../", import.meta.url).pathname;
const ms = (since: number) => `${Math.round(performance.now() - since)} ms`;
const npmSettings = () =>
  Object.fromEntries(Object.entries(Deno.env.toObject()).filter(([name]) => /^npm_config_/i.test(name)));
const descendant = (pid: number, depth: number) => {
  let p = procInfo(pid);
  for (let i = 0; i < depth && p; i++) p = childrenOf(p.pid)[0] ?? null;
  return p;
};
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, "g"))?.length ?? 0;

Deno.test("Ctrl-C to `npx … task start` during a valid upload: 201, one shutdown, the grace kept", async () => {
  // A grace far beyond the upload's need: the answer must be 201 however loaded the machine is.
  await using srv = await startServer({
    launch: [...NPX_DENO, "task", "start"],
    env: { SHUTDOWN_GRACE_SECONDS: "60" },
  });
  const api = await srv.login();
  const content = fakeXz(1 << 20);
  const upload = heldUpload(`${srv.url}/api/v1/device_firmwares`, api.token, "group-1.0.xz", content);
  // npm exec → sh -c → deno task → the server
  const server = await waitFor(() => descendant(srv.process.pid, 3), 10_000, "the server under npx");
  const xz = await waitFor(
    () => childrenOf(server.pid, "xz")[0],
    10_000,
    "the upload's xz check (the upload in flight)",
  );
  assert.notEqual(xz.pgrp, srv.process.pid, "xz must not be in the server's process group");

  const stopped = performance.now();
  srv.signalGroup("SIGINT"); // Ctrl-C: the terminal signals every process of the group
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(procInfo(xz.pid), "the xz check must survive the operator's Ctrl-C");
  upload.release();
  const res = await upload.response;
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  // Bounded: a server left running would keep the output's pipes open (and srv.stop() waiting) for ever.
  await groupGone(srv.process.pid, 30_000);
  const code = await srv.stop(); // exited already: no signal is sent, the output is read to its end
  const out = srv.output();
  console.log(
    `  Ctrl-C during an upload: ${res.status} ${body.name}; npx exit ${code}, everything stopped after ` +
      `${ms(stopped)}; copies of the signal ignored: ${count(out, /a copy of the same stop/)}`,
  );
  assert.equal(count(out, /refusing new requests/), 1, out);
  assert.doesNotMatch(out, /again: stopping without waiting|invalid_firmware|device_firmwares 422/);
  assert.match(out, /Stopped\./);
  assert.deepEqual(await srv.storedFirmwares(), [`${body._id}.xz`]);
});

Deno.test("an xz check killed by a signal: 503 unavailable, never 422, nothing stored", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const upload = heldUpload(`${srv.url}/api/v1/device_firmwares`, api.token, "killed-1.0.xz", fakeXz(1 << 20));
  const xz = await waitFor(
    () => childrenOf(srv.process.pid, "xz")[0],
    10_000,
    "the upload's xz check (the upload in flight)",
  );
  Deno.kill(xz.pid, "SIGTERM");
  const res = await upload.response;
  const body = await res.json();
  console.log(`  xz killed mid-upload: ${res.status} ${body.error}: ${body.msg}`);
  assert.equal(res.status, 503);
  assert.equal(body.error, "unavailable");
  upload.release();
  assert.deepEqual(await api.listFirmwares(), []);
  assert.deepEqual(await srv.storedFirmwares(), []);
  assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
});

Deno.test("SIGTERM to the npx in front of `task start`: the server stops, nothing is left running", async () => {
  await using srv = await startServer({ launch: [...NPX_DENO, "task", "start"] });
  assert.equal((await srv.fetch("/healthz")).status, 200);
  const killed = performance.now();
  srv.process.kill("SIGTERM");
  const { code } = await srv.process.status; // npx's own exit
  await groupGone(srv.process.pid, 15_000); // before srv.stop(): the output's pipes stay open while anything runs
  await srv.stop();
  console.log(`  SIGTERM to npx: npx exit ${code}; deno task and the server gone after ${ms(killed)}`);
  assert.match(srv.output(), /The npx that started the server is gone: refusing new requests/);
  assert.match(srv.output(), /Stopped\./);
});

Deno.test("a cancelled CLI upload (SIGTERM to npx in front, to itself; SIGINT to its group) stores nothing, sets no default", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const [type] = await api.listDeviceTypes();
  const dir = await Deno.makeTempDir({ prefix: "console-signals-" });
  const file = `${dir}/cancelled-1.0.xz`;
  await Deno.writeFile(file, fakeXz(48 << 20));

  const cancel = async (command: string[], signal: (pid: number) => void, label: string) => {
    // Like a slow link: 1 MiB at once, then ≤ 8 MiB/s; the upload is in flight when the signal comes.
    await using proxy = holdingProxy(srv.url, 1 << 20);
    const [cmd, ...args] = command;
    const child = new Deno.Command(cmd, {
      args: [...args, "--url", proxy.url, "--token", api.token, "firmware", "upload", file, "--default"],
      cwd: ROOT,
      clearEnv: true,
      // npm's own settings (its cache, where CI may move it) pass through, as they would to the README's command.
      env: { ...cliEnv(), ...npmSettings() },
      detached: true, // a group of its own, as in a terminal or a CI job
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = child.output();
    const early = output.then((o) => {
      throw new Error(
        `the CLI ended before its upload was in flight: exit ${o.code}\n${new TextDecoder().decode(o.stderr)}`,
      );
    });
    await Promise.race([proxy.holding, early]);
    early.catch(() => {});
    await new Promise((r) => setTimeout(r, 200));
    const sent = performance.now();
    signal(child.pid);
    // Bounded: a CLI left running keeps the output's pipes open (the npx one exits on its own).
    await groupGone(child.pid, 15_000).catch(async (err) => {
      Deno.kill(-child.pid, "SIGKILL");
      await output;
      throw err;
    });
    const gone = ms(sent);
    const out = await output;
    const stderr = new TextDecoder().decode(out.stderr);
    // The server sees the body cut and removes the partial file.
    const deadline = Date.now() + 30_000;
    while ((await listFiles(`${srv.dataDir}/tmp`)).length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const discarded = ms(sent);
    assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
    console.log(
      `  ${label}: exit ${out.code}, every process gone after ${gone}, the partial upload discarded after ` +
        `${discarded}; the CLI said: ${stderr.trim().split("\n").pop()}`,
    );
    assert.deepEqual(await api.listFirmwares(), [], stderr);
    assert.deepEqual(await srv.storedFirmwares(), []);
    assert.equal((await api.getDeviceType(type._id)).defaultFirmware ?? null, null);
    return { code: out.code, stderr };
  };

  await t.step("SIGTERM to the npx in front of `task cli`", async () => {
    const r = await cancel([...NPX_DENO, "task", "cli"], (pid) => Deno.kill(pid, "SIGTERM"), "SIGTERM to npx");
    assert.equal(r.code, 143);
    assert.match(r.stderr, /cancelled \(the npx in front of the CLI is gone\): the upload was stopped before its end/);
  });

  await t.step("SIGINT to the group of `deno task cli` (Ctrl-C)", async () => {
    const r = await cancel([Deno.execPath(), "task", "cli"], (pid) => Deno.kill(-pid, "SIGINT"), "Ctrl-C");
    assert.equal(r.code, 130);
    assert.match(r.stderr, /cancelled \(SIGINT\): the upload was stopped before its end; nothing was stored/);
  });

  await t.step("SIGTERM to the CLI process itself", async () => {
    const cli = [Deno.execPath(), "run", "-A", "--use-env-proxy", "cli/main.ts"];
    const r = await cancel(cli, (pid) => Deno.kill(pid, "SIGTERM"), "SIGTERM to the CLI");
    assert.equal(r.code, 143);
    assert.match(r.stderr, /cancelled \(SIGTERM\): the upload was stopped before its end; nothing was stored/);
  });
  await Deno.remove(dir, { recursive: true });
});
