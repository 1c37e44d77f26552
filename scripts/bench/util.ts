/** Small helpers shared by the benchmark steps. */
import { gzipSync } from "node:zlib";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const DENO = Deno.execPath();

import { freePort } from "../../testing/server.ts";
import { SERVER_V8_FLAGS } from "../../server/v8_flags.ts";

/** Clock ticks per second of /proc's CPU times (USER_HZ, `getconf CLK_TCK`: 100 on Linux). */
const CLK_TCK = 100;

/**
 * CPU seconds a process has used so far (/proc/<pid>/stat: utime + stime; with `children`, also its reaped children's
 * cutime + cstime).
 */
export function processCpuSeconds(pid: number, children = false): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // After the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const own = Number(f[11]) + Number(f[12]);
  return (children ? own + Number(f[13]) + Number(f[14]) : own) / CLK_TCK;
}

export { freePort };

export interface Proc {
  url: string;
  pid: number;
  /** Peak resident set size so far (VmHWM), in bytes. */
  peakRss(): Promise<number>;
  resetPeak(): Promise<void>;
  stop(): Promise<void>;
}

/** Waits (up to a minute) until the server at `url` answers. */
export async function waitUntilUp(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(`${url}/healthz`).catch(() => fetch(`${url}/api/v1/devices`));
      await r.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Spawns a Deno script (of the tree at `root`) that prints "Listening on http://host:port/", output discarded after that. */
export async function spawnServer(script: string, env: Record<string, string>, root = ROOT): Promise<Proc> {
  const port = freePort();
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", ...(script.endsWith("main.ts") ? [`--v8-flags=${SERVER_V8_FLAGS}`] : []), script],
    cwd: root,
    env: { HOST: "127.0.0.1", ...env, PORT: String(port) },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(url);
  return {
    url,
    pid: child.pid,
    peakRss: () => vmHwm(child.pid),
    resetPeak: () => resetPeak(child.pid),
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

/** Resets the kernel's peak-RSS counter of a process (so start-up is not counted). */
export async function resetPeak(pid: number): Promise<void> {
  await Deno.writeTextFile(`/proc/${pid}/clear_refs`, "5");
}

export async function vmHwm(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Two runs of the same load one after the other as one (requests summed over both runs' time; the worse p99). */
export function sequential(a: LoadResult, b: LoadResult): LoadResult {
  const time = a.requests / a.rps + b.requests / b.rps;
  return {
    requests: a.requests + b.requests,
    rps: (a.requests + b.requests) / time,
    p50: Math.max(a.p50, b.p50),
    p99: Math.max(a.p99, b.p99),
    errors: a.errors + b.errors,
    non2xx: a.non2xx + b.non2xx,
  };
}

/** A load loop's figures: `latencies` in ms (sorted here), since `started` (performance.now()). */
export function loadResult(latencies: number[], started: number, errors: number, non2xx: number): LoadResult {
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    +(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0).toFixed(1);
  return { requests: latencies.length, rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), errors, non2xx };
}

/** Runs autocannon in its own process against url. */
export async function load(
  url: string,
  seconds: number,
  connections: number,
  headers: Record<string, string> = {},
  extra: string[] = [],
): Promise<LoadResult> {
  const out = await new Deno.Command(DENO, {
    args: [
      "run",
      "-A",
      `${ROOT}scripts/bench/load.ts`,
      url,
      String(seconds),
      String(connections),
      ...Object.entries(headers).map(([k, v]) => `${k}=${v}`),
      ...extra,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

export const gzipSize = (bytes: Uint8Array) => gzipSync(bytes).length;
export const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
export const kb = (n: number) => (n / 1000).toFixed(1);
export const fixed = (n: number, d = 2) => n.toFixed(d);
