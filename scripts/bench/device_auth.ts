/**
 * Check-in throughput with DEVICE_AUTH=token vs DEVICE_AUTH=shared (docs/REQUIREMENTS.md §11): the same server, the same
 * devices, the same client loop, only the mode differs. In token mode each device enrols once (auto admission) and
 * checks in with its own token, so every request pays the token check (one lookup by primary key and a sha256).
 */
import { DeviceClient } from "../../shared/client.ts";
import { serverEnv } from "./steps.ts";
import { type LoadResult, loadResult, spawnServer } from "./util.ts";

const KEY = serverEnv("").DEVICE_API_KEY;
const VERSION = { app: "2.4.1", os: "5.10.0", channels: ["1.2", "1.2"] };

/** `connections` devices check in back to back for `seconds`; each device is one connection's loop. */
async function checkinLoop(url: string, seconds: number, keys: string[]): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0, non2xx = 0;
  const body = JSON.stringify({ versionInfo: VERSION });
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(keys.map(async (key, i) => {
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}/api/v1/device/auth-${i}/checkin`, { method: "POST", headers, body });
        await res.arrayBuffer();
        if (!res.ok) non2xx++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }));
  return loadResult(latencies, started, errors, non2xx);
}

export interface DeviceAuthFigures {
  shared: LoadResult;
  token: LoadResult;
}

export async function benchDeviceAuth(tmp: string, seconds: number, connections: number): Promise<DeviceAuthFigures> {
  const run = async (mode: "shared" | "token") => {
    const dataDir = await Deno.makeTempDir({ dir: tmp, prefix: `auth-${mode}-` });
    const srv = await spawnServer("server/main.ts", {
      ...serverEnv(dataDir),
      LOG_LEVEL: "quiet",
      DEVICE_AUTH: mode,
      DEVICE_ADMISSION: "auto",
    });
    try {
      const keys: string[] = [];
      for (let i = 0; i < connections; i++) {
        if (mode === "shared") {
          await new DeviceClient(`auth-${i}`, { baseUrl: srv.url, apiKey: KEY }).checkin({ versionInfo: VERSION });
          keys.push(KEY);
        } else {
          const answer = await new DeviceClient(`auth-${i}`, { baseUrl: srv.url, apiKey: KEY }).enroll({
            versionInfo: VERSION,
          });
          if (!("token" in answer)) throw new Error(`auth-${i} was not issued a token`);
          keys.push(answer.token);
        }
      }
      await checkinLoop(srv.url, Math.min(1, seconds), keys); // warm-up
      return await checkinLoop(srv.url, seconds, keys);
    } finally {
      await srv.stop();
    }
  };
  const shared = await run("shared");
  const token = await run("token");
  return { shared, token };
}
