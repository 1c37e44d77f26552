/** Watching a server under load: its memory from /proc, and how fast device check-ins answer meanwhile. */
import { DEVICE_API_KEY, type TestServer } from "../../testing/server.ts";

/** VmRSS and VmHWM (peak) of a process, in bytes. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Resets the process's peak (VmHWM) to its current RSS, so what comes next is measured alone. */
export function resetPeak(pid: number): void {
  Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
}

export const MiB = 1024 * 1024;

/**
 * A device that checks in every `everyMs` while the test runs: each check-in's time to answer is recorded (one at a
 * time, so a server that stops answering shows as one long check-in).
 */
export function checkinProbe(srv: TestServer, everyMs = 50): { stop(): Promise<{ count: number; max: number }> } {
  let running = true;
  const times: number[] = [];
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${srv.url}/api/v1/device/probe-device/checkin`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${DEVICE_API_KEY}` },
        body: JSON.stringify({ versionInfo: { app: "1.0.0", os: "probe", channels: [] } }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`check-in answered ${res.status}`);
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { count: times.length, max: Math.max(...times) };
    },
  };
}

/**
 * Asserts a wall-clock figure against a bound a loaded machine cannot break by itself, printing the figure either way:
 * `quietMs` is what holds on a quiet machine; the bound is that times the load average per core, at least 3× (on 2
 * cores at load 20: 10×). A server that blocks for good still fails; a busy CI neighbour does not.
 */
export function assertWithinUnderLoad(label: string, measuredMs: number, quietMs: number): void {
  const cores = navigator.hardwareConcurrency || 1;
  const load = Deno.loadavg()[0];
  const bound = quietMs * Math.max(3, load / cores);
  console.log(
    `${label}: ${measuredMs.toFixed(0)} ms (quiet-machine bound ${quietMs} ms; here ${bound.toFixed(0)} ms at load ` +
      `${load.toFixed(1)} on ${cores} cores)`,
  );
  if (!(measuredMs < bound)) throw new Error(`${label}: ${measuredMs.toFixed(0)} ms, over ${bound.toFixed(0)} ms`);
}
