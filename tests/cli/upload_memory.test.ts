import assert from "node:assert/strict";
import type { Firmware } from "../../shared/schemas/mod.ts";
import { startServer } from "../../testing/server.ts";
import { CLI_MAIN, cliEnv } from "./run_cli.ts";
import { writeXzFile } from "../../testing/xz_fixtures.ts";

const SIZE = 200 * 1024 * 1024;
const LIMIT = 150 * 1024 * 1024;

/** Highest VmHWM/VmRSS seen in /proc/<pid>/status, polled until the process ends. */
function watchPeakRss(pid: number): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      const status = Deno.readTextFileSync(`/proc/${pid}/status`);
      for (const key of ["VmHWM", "VmRSS"]) {
        const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
        if (m) peak = Math.max(peak, Number(m[1]) * 1024);
      }
    } catch { /* the process is gone */ }
  };
  const timer = setInterval(read, 20);
  read();
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

Deno.test("CLI firmware upload of 200 MB streams: the CLI's peak RSS stays well below the file size", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "cli-bigupload-" });
  try {
    const path = `${dir}/fw-200mb.xz`;
    await writeXzFile(path, SIZE);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--v8-flags=--expose-gc", CLI_MAIN, "--json", "firmware", "upload", path],
      cwd: new URL("../../", import.meta.url).pathname,
      clearEnv: true,
      env: cliEnv({ CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const watch = watchPeakRss(child.pid);
    const out = await child.output();
    const peak = watch.stop();
    const dec = new TextDecoder();
    assert.equal(out.code, 0, dec.decode(out.stderr));
    const created: Firmware = JSON.parse(dec.decode(out.stdout));
    assert.equal(created.size, SIZE);
    const sum = await new Deno.Command("sha256sum", { args: [path], stdout: "piped" }).output();
    assert.equal(created.sha256, dec.decode(sum.stdout).split(" ")[0]);
    console.log(`CLI peak RSS while uploading ${SIZE / 2 ** 20} MiB: ${(peak / 2 ** 20).toFixed(1)} MiB`);
    assert.ok(peak > 0, "the CLI's memory was measured");
    assert.ok(peak < LIMIT, `peak RSS ${(peak / 2 ** 20).toFixed(1)} MiB should stay below ${LIMIT / 2 ** 20} MiB`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
