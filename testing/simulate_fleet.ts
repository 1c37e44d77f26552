/**
 * A simulated fleet against a running console's device API: each device checks in (`rounds` times) and, with
 * `download`, fetches the firmware its config names and verifies size and sha256. With `auth: "token"` (docs/REQUIREMENTS.md §11)
 * each device first enrols with `key` (the enrolment key), waits while it is pending (polling every `pollMs`, at most
 * `waitMs`), then checks in with its own token; tokens given in `tokens` are used without enrolling, and the ones
 * issued are added to it. With `report`, a device whose config
 * names a firmware it has not installed yet reports downloading -> installing -> installed (or failed, for the share
 * `failRate` of devices, chosen by a stable hash of device and firmware). Failures are counted by kind, not thrown. The core of scripts/simulate-fleet.ts, tested by tests/device/simulate_fleet.test.ts.
 */
import { createHash } from "node:crypto";
import { ApiError, DeviceClient } from "../shared/client.ts";
import type { DeviceConfig } from "../shared/schemas/device_api.ts";

export interface FleetOptions {
  url: string;
  key: string;
  devices: number;
  /** Requests in flight at once (default 50). */
  concurrency?: number;
  /** Check-ins per device (default 1). */
  rounds?: number;
  /** Download and verify each device's firmware after its last check-in. */
  download?: boolean;
  /** Device ids are `<prefix><n>` (default "sim-"). */
  prefix?: string;
  timeoutMs?: number;
  /** How devices authenticate: the shared key (default) or enrolment and a token per device. */
  auth?: "shared" | "token";
  /** Token mode: how long a pending device keeps enrolling before it gives up (default 0: one attempt). */
  waitMs?: number;
  /** Token mode: the pause between two enrolments of a pending device (default 1000). */
  pollMs?: number;
  /** Token mode: deviceId -> token, used instead of enrolling; issued tokens are added. */
  tokens?: Map<string, string>;
  /** Report update progress (docs/REQUIREMENTS.md §13) for a firmware not installed yet. */
  report?: boolean;
  /** With `report`, the share (0-1) of devices whose installation fails (stable per device and firmware). */
  failRate?: number;
  /** The firmware each device has installed or failed (device id -> firmware id): carried from run to run. */
  installed?: Map<string, string>;
  /** Device numbers from `first` (default 0): devices first .. first + devices - 1. */
  first?: number;
}

/** Whether a simulated device fails to install a firmware: a stable share `rate` of devices per firmware. */
export function failsToInstall(deviceId: string, firmwareId: string, rate: number): boolean {
  if (rate <= 0) return false;
  const digest = createHash("sha256").update(`fail:${deviceId}:${firmwareId}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < rate;
}

export interface FleetSummary {
  devices: number;
  requests: number;
  checkins: number;
  downloads: number;
  /** Token mode: tokens issued to devices by this run. */
  enrolled: number;
  /** Token mode: devices still pending when they gave up waiting (not counted as errors). */
  pending: number;
  /** Status reports sent, and the installations reported installed and failed. */
  reports: number;
  installed: number;
  failed: number;
  /** Failed requests by kind: the HTTP status, FETCH_ERROR, TIMEOUT_ERROR, PARSING_ERROR or CHECKSUM. */
  errors: Record<string, number>;
  errorCount: number;
  firstError: string | null;
  bytes: number;
  seconds: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
}

const APPS = ["2.3.4", "2.4.0", "2.4.1"];

export function versionInfoFor(n: number) {
  return {
    app: APPS[n % APPS.length],
    os: `jeecee-os 5.10.${100 + (n % 50)}`,
    channels: n % 2
      ? ["stim-a 1.2.0", "stim-b 1.2.0"]
      : ["stim-a 1.3.0", "stim-b 1.3.0", "stim-c 1.3.0", "stim-d 1.3.0"],
  };
}

export async function simulateFleet(opts: FleetOptions): Promise<FleetSummary> {
  const concurrency = Math.max(1, Math.min(opts.concurrency ?? 50, opts.devices || 1));
  const rounds = Math.max(1, opts.rounds ?? 1);
  const prefix = opts.prefix ?? "sim-";
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let firstError: string | null = null;
  let checkins = 0, downloads = 0, bytes = 0, enrolled = 0, pending = 0;
  let reports = 0, installedCount = 0, failedCount = 0;
  const tokens = opts.tokens ?? new Map<string, string>();
  const installed = opts.installed ?? new Map<string, string>();

  const fail = (kind: string, message: string) => {
    errors[kind] = (errors[kind] ?? 0) + 1;
    firstError ??= message;
  };
  const timed = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    const t0 = performance.now();
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ApiError) fail(err.status ? String(err.status) : err.kind, err.message);
      else fail("ERROR", String(err));
      return undefined;
    } finally {
      latencies.push(performance.now() - t0);
    }
  };

  /** Token mode: enrols until a token is issued (true), or gives up (false: pending too long, or refused). */
  async function enrol(id: string, device: DeviceClient): Promise<boolean> {
    const until = performance.now() + (opts.waitMs ?? 0);
    for (;;) {
      const answer = await timed(() => device.enroll({ versionInfo: versionInfoFor(Number(id.slice(prefix.length))) }));
      if (!answer) return false;
      if ("token" in answer) {
        tokens.set(id, answer.token);
        enrolled++;
        return true;
      }
      if (performance.now() >= until) {
        pending++;
        return false;
      }
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
    }
  }

  async function runDevice(n: number) {
    const id = `${prefix}${n}`;
    const tokenMode = opts.auth === "token";
    let enrolling = tokenMode && !tokens.has(id);
    const device = new DeviceClient(id, {
      baseUrl: opts.url,
      apiKey: () => !tokenMode || enrolling ? opts.key : tokens.get(id)!,
      timeoutMs: opts.timeoutMs,
    });
    if (enrolling) {
      if (!await enrol(id, device)) return;
      enrolling = false;
    }
    let config: DeviceConfig | undefined;
    for (let r = 0; r < rounds; r++) {
      config = await timed(() => device.checkin({ versionInfo: versionInfoFor(n) }));
      if (config) checkins++;
    }
    const firmware = config?.firmware;
    if (!firmware) return;
    const reporting = opts.report && installed.get(id) !== firmware._id;
    const report = async (body: Parameters<DeviceClient["status"]>[0]) => {
      const ok = await timed(async () => {
        await device.status(body);
        return true;
      });
      if (ok) reports++;
      return ok === true;
    };
    if (reporting && !await report({ firmwareId: firmware._id, state: "downloading", progress: 0 })) return;
    if (opts.download) await download(device, firmware);
    if (!reporting) return;
    if (!await report({ firmwareId: firmware._id, state: "installing", progress: 50 })) return;
    const fails = failsToInstall(id, firmware._id, opts.failRate ?? 0);
    const done = await report(
      fails
        ? { firmwareId: firmware._id, state: "failed", message: `Simulated failure: ${firmware.name} did not verify.` }
        : { firmwareId: firmware._id, state: "installed", progress: 100 },
    );
    if (!done) return;
    installed.set(id, firmware._id);
    if (fails) failedCount++;
    else installedCount++;
  }

  async function download(device: DeviceClient, firmware: NonNullable<DeviceConfig["firmware"]>) {
    const n = device.deviceId;
    await timed(async () => {
      const res = await device.firmware();
      const hash = createHash("sha256");
      let size = 0;
      for await (const chunk of res.body!) {
        hash.update(chunk);
        size += chunk.byteLength;
      }
      bytes += size;
      if (size !== firmware.size || hash.digest("hex") !== firmware.sha256) {
        fail("CHECKSUM", `${n}: firmware ${firmware.name} arrived with the wrong size or sha256.`);
      } else downloads++;
    });
  }

  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < opts.devices) await runDevice((opts.first ?? 0) + next++);
  }));
  const seconds = (performance.now() - started) / 1000;

  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies.length ? +latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1) : 0;
  const errorCount = Object.values(errors).reduce((s, n) => s + n, 0);
  return {
    devices: opts.devices,
    requests: latencies.length,
    checkins,
    downloads,
    enrolled,
    pending,
    reports,
    installed: installedCount,
    failed: failedCount,
    errors,
    errorCount,
    firstError,
    bytes,
    seconds: +seconds.toFixed(3),
    requestsPerSecond: seconds > 0 ? +(latencies.length / seconds).toFixed(1) : 0,
    latencyMs: { p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), max: pct(1) },
  };
}

export function formatSummary(s: FleetSummary): string {
  const errs = s.errorCount ? Object.entries(s.errors).map(([k, n]) => `${k}: ${n}`).join(", ") : "none";
  return [
    `${s.devices} devices, ${s.requests} requests in ${s.seconds} s: ${s.requestsPerSecond} requests/s`,
    `check-ins ${s.checkins}, firmware downloads ${s.downloads} (${s.bytes} bytes)` +
    (s.enrolled || s.pending ? `; tokens issued ${s.enrolled}, still pending ${s.pending}` : ""),
    ...(s.reports ? [`status reports ${s.reports}: ${s.installed} installed, ${s.failed} failed`] : []),
    `latency ms: p50 ${s.latencyMs.p50}, p95 ${s.latencyMs.p95}, p99 ${s.latencyMs.p99}, max ${s.latencyMs.max}`,
    `errors: ${errs}${s.firstError ? ` (first: ${s.firstError})` : ""}`,
  ].join("\n");
}
