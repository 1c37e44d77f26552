/**
 * `deno run -A scripts/bench/guard.ts [rounds]`: what the in-process front that drops slow clients costs
 * (CONNECTION_GUARD=1, server/lib/connection_front.ts) against Deno.serve alone (CONNECTION_GUARD=0), on the same
 * machine, alternating the two for a few rounds so a busy machine weighs on both alike. Per mode: GET /healthz (the
 * smallest answer: the front's cost shows most), device check-ins (20 devices), and a 64 MiB firmware upload and
 * download. Prints one table (docs/PERFORMANCE.md, "Results of the other commands").
 */
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { fileSource } from "../../testing/files.ts";
import { writeXzFile } from "../../testing/xz_fixtures.ts";
import { ADMIN, benchCheckin, serverEnv } from "./steps.ts";
import { load, processCpuSeconds, spawnServer, timed } from "./util.ts";

const rounds = Number(Deno.args[0] ?? 3);
const tmp = await Deno.makeTempDir({ prefix: "bench-guard-" });
const file = `${tmp}/firmware.xz`;
const bytes = await writeXzFile(file, 64 * 1024 * 1024);

interface Figures {
  healthz: number[];
  checkin: number[];
  checkinP99: number[];
  uploadMs: number[];
  downloadMs: number[];
  /** The server's CPU time (user + system) for the upload and for the download: steadier than wall time. */
  uploadCpu: number[];
  downloadCpu: number[];
}

/** A process's CPU time so far (utime + stime), in ms. */
const cpuMs = (pid: number) => processCpuSeconds(pid) * 1000;
const figures: Record<string, Figures> = {};

for (let round = 0; round < rounds; round++) {
  for (const guard of ["1", "0"]) {
    const f = figures[guard] ??= {
      healthz: [],
      checkin: [],
      checkinP99: [],
      uploadMs: [],
      downloadMs: [],
      uploadCpu: [],
      downloadCpu: [],
    };
    const dataDir = await Deno.makeTempDir({ dir: tmp, prefix: "data-" });
    const srv = await spawnServer("server/main.ts", {
      ...serverEnv(dataDir),
      CONNECTION_GUARD: guard,
      LOG_LEVEL: "quiet",
    });
    try {
      await load(`${srv.url}/healthz`, 1, 10); // warm-up
      f.healthz.push((await load(`${srv.url}/healthz`, 3, 10)).rps);
      const checkin = await benchCheckin(srv.url, 3, 20);
      f.checkin.push(checkin.rps);
      f.checkinP99.push(checkin.p99);
      const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
      const api = new ApiClient({ baseUrl: srv.url, token: () => token, uploadFetch: fixedLengthFetch });
      let cpu = cpuMs(srv.pid);
      const up = await timed(async () => api.uploadFirmware(await fileSource(file)));
      f.uploadMs.push(up.ms);
      f.uploadCpu.push(cpuMs(srv.pid) - cpu);
      cpu = cpuMs(srv.pid);
      const down = await timed(async () => {
        const res = await fetch(`${srv.url}/api/v1/device_firmwares/${up.value._id}/file`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        let n = 0;
        for await (const chunk of res.body!) n += chunk.length;
        if (n !== bytes) throw new Error(`downloaded ${n} of ${bytes} bytes`);
      });
      f.downloadMs.push(down.ms);
      f.downloadCpu.push(cpuMs(srv.pid) - cpu);
    } finally {
      await srv.stop();
    }
  }
}
await Deno.remove(tmp, { recursive: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const mibps = (ms: number) => (bytes / 1024 / 1024 / (ms / 1000)).toFixed(0);
const on = figures["1"], off = figures["0"];
const row = (what: string, a: number, b: number, unit: string, better: "higher" | "lower") =>
  `| ${what} | ${a.toFixed(0)} ${unit} | ${b.toFixed(0)} ${unit} | ${
    (better === "higher" ? a / b : b / a).toFixed(2)
  } |`;
console.log(
  `Medians of ${rounds} rounds, alternating; load average ${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
);
console.log("| figure | CONNECTION_GUARD=1 | CONNECTION_GUARD=0 | guarded / alone |");
console.log("|---|---|---|---|");
console.log(row("GET /healthz, 10 connections", median(on.healthz), median(off.healthz), "req/s", "higher"));
console.log(row("device check-in, 20 devices", median(on.checkin), median(off.checkin), "req/s", "higher"));
console.log(row("device check-in p99", median(on.checkinP99), median(off.checkinP99), "ms", "lower"));
console.log(
  `| firmware upload 64 MiB | ${median(on.uploadMs).toFixed(0)} ms (${mibps(median(on.uploadMs))} MiB/s) | ` +
    `${median(off.uploadMs).toFixed(0)} ms (${mibps(median(off.uploadMs))} MiB/s) | ` +
    `${(median(off.uploadMs) / median(on.uploadMs)).toFixed(2)} |`,
);
console.log(row("server CPU for the upload", median(on.uploadCpu), median(off.uploadCpu), "ms", "lower"));
console.log(row("server CPU for the download", median(on.downloadCpu), median(off.downloadCpu), "ms", "lower"));
console.log(
  `| firmware download 64 MiB | ${median(on.downloadMs).toFixed(0)} ms (${mibps(median(on.downloadMs))} MiB/s) | ` +
    `${median(off.downloadMs).toFixed(0)} ms (${mibps(median(off.downloadMs))} MiB/s) | ` +
    `${(median(off.downloadMs) / median(on.downloadMs)).toFixed(2)} |`,
);
