/**
 * `deno run -A scripts/firmware-upload-memory.ts [MiB]` (default 1024): the server's peak RSS while it
 * receives one firmware upload, for docs/PERFORMANCE.md. Spawns the real server on a temp DATA_DIR, signs in,
 * resets the kernel's peak counter (`5 > /proc/<pid>/clear_refs`, so start-up's scrypt work is not counted),
 * streams the upload from a generator through the shared client (a valid xz file, never held whole) and
 * reads VmHWM from /proc/<pid>/status; VmRSS is also sampled every 20 ms to show the curve levels off.
 */
import { createHash } from "node:crypto";
import { startServer } from "../testing/server.ts";
import { xzStreamOfSize } from "../testing/xz_fixtures.ts";

const MiB = 1024 * 1024;
const size = Number(Deno.args[0] ?? 1024) * MiB; // a whole number of MiB: a multiple of 4, as xz files are
const status = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(Deno.readTextFileSync(`/proc/${pid}/status`))![1]) * 1024;
const mib = (n: number) => (n / MiB).toFixed(1);

await using srv = await startServer({ env: { LOG_LEVEL: "quiet", MAX_FIRMWARE_BYTES: String(size) } });
const api = await srv.login();
await api.listFirmwares();
const pid = srv.process.pid;
const startupPeak = status(pid, "VmHWM");
const idle = status(pid, "VmRSS");
Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");

const parts = xzStreamOfSize(size);
const hash = createHash("sha256");
const samples: number[] = [];
const sampler = setInterval(() => samples.push(status(pid, "VmRSS")), 20);
const t0 = performance.now();
const fw = await api.uploadFirmware({
  name: "memory-probe.xz",
  size,
  stream: () =>
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await parts.next();
        if (done) return controller.close();
        hash.update(value);
        controller.enqueue(value);
      },
    }),
});
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
if (fw.size !== size || fw.sha256 !== hash.digest("hex")) throw new Error("upload does not match what was sent");

const uploadPeak = status(pid, "VmHWM");
const tenths = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((t) =>
  samples[Math.min(samples.length - 1, Math.floor(t * samples.length / 10) - 1)]
);
console.log(`file ${mib(size)} MiB in ${seconds.toFixed(2)} s (${(size / MiB / seconds).toFixed(0)} MiB/s)`);
console.log(`server start-up peak ${mib(startupPeak)} MiB, idle RSS ${mib(idle)} MiB`);
console.log(`server peak RSS during the upload (VmHWM after reset) ${mib(uploadPeak)} MiB`);
console.log(`VmRSS at each tenth of the upload: ${tenths.map(mib).join(", ")} MiB`);
