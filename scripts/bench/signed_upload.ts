/**
 * `deno run -A scripts/bench/signed_upload.ts [rounds] [MiB]`: what verifying a release key's signature costs a firmware
 * upload (docs/REQUIREMENTS.md §20), on one server, in the same run: unsigned, signed by an Ed25519 key named with
 * keyId, and signed by an ECDSA P-256 key without keyId (the server tries the registered keys: the P-256 key is
 * registered last of three), alternating so a busy machine weighs on all alike. The signature is checked against the
 * digest the upload computed while streaming, so the cost should be one verification (well under a millisecond)
 * whatever the size. The order of the three turns each round. Prints one table (docs/PERFORMANCE.md, "Results of the other commands").
 */
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { fileSource } from "../../testing/files.ts";
import { opensslKey, opensslSign } from "../../testing/release_keys.ts";
import { writeXzFile } from "../../testing/xz_fixtures.ts";
import { parsePublicKey, verifiesDigest } from "../../server/auth/release_signatures.ts";
import { ADMIN, serverEnv } from "./steps.ts";
import { processCpuSeconds, spawnServer, timed } from "./util.ts";

const rounds = Number(Deno.args[0] ?? 5);
const mebibytes = Number(Deno.args[1] ?? 64);
const tmp = await Deno.makeTempDir({ prefix: "bench-signed-" });
const file = `${tmp}/firmware.xz`;
const bytes = await writeXzFile(file, mebibytes * 1024 * 1024);
const [ed, spare, p256] = await Promise.all([
  opensslKey(tmp, "ed25519"),
  opensslKey(tmp, "ed25519"),
  opensslKey(tmp, "ecdsa-p256"),
]);
const edSig = await opensslSign(ed, file);
const p256Sig = await opensslSign(p256, file);

/** A process's CPU time so far (utime + stime), in ms. */
const cpuMs = (pid: number) => processCpuSeconds(pid) * 1000;

const dataDir = await Deno.makeTempDir({ dir: tmp, prefix: "data-" });
const srv = await spawnServer("server/main.ts", { ...serverEnv(dataDir), LOG_LEVEL: "quiet" });
const kinds = ["unsigned", "ed25519 (keyId)", "p256 (keys tried)"] as const;
const wall: Record<string, number[]> = {}, cpu: Record<string, number[]> = {};
try {
  const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
  const api = new ApiClient({ baseUrl: srv.url, token: () => token, uploadFetch: fixedLengthFetch });
  const edKey = await api.createReleaseKey("bench ed25519", ed.publicPem);
  await api.createReleaseKey("bench spare", spare.publicPem);
  await api.createReleaseKey("bench p256", p256.publicPem);
  const fields: Record<string, Record<string, string>> = {
    "unsigned": {},
    "ed25519 (keyId)": { signature: edSig, keyId: edKey._id },
    "p256 (keys tried)": { signature: p256Sig },
  };
  let n = 0;
  for (let round = -1; round < rounds; round++) { // round -1 warms up
    // The order turns each round, so no kind always follows another's deletion.
    const order = kinds.map((_, i) => kinds[(i + Math.max(round, 0)) % kinds.length]);
    for (const kind of order) {
      const before = cpuMs(srv.pid);
      const up = await timed(async () =>
        api.uploadFirmware(await fileSource(file, `fw-${n++}.xz`), undefined, { fields: fields[kind] })
      );
      if (up.value.size !== bytes) throw new Error("size mismatch");
      if ((up.value.signature === null) !== (kind === "unsigned")) throw new Error(`${kind}: signature not as sent`);
      if (round < 0) continue;
      (wall[kind] ??= []).push(up.ms);
      (cpu[kind] ??= []).push(cpuMs(srv.pid) - before);
      await api.deleteFirmware(up.value._id);
    }
  }
} finally {
  await srv.stop();
}

/** One verification in process, as the upload does it (the digest already known): µs per call. */
async function verifyMicros(key: typeof ed, sig: string): Promise<number> {
  const parsed = parsePublicKey(key.publicPem);
  if (typeof parsed === "string") throw new Error(parsed);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(file)));
  const signature = Uint8Array.from(atob(sig), (c) => c.charCodeAt(0));
  const n = 2000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) if (!verifiesDigest(parsed, digest, signature)) throw new Error("does not verify");
  return (performance.now() - t0) * 1000 / n;
}
const edMicros = await verifyMicros(ed, edSig);
const p256Micros = await verifyMicros(p256, p256Sig);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const mibps = (ms: number) => (bytes / 1024 / 1024 / (ms / 1000)).toFixed(0);
console.log(
  `${mebibytes} MiB upload, medians of ${rounds} rounds, alternating; load average ${
    Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
  }`,
);
console.log("| upload | wall | server CPU | wall / unsigned | CPU / unsigned |");
console.log("|---|---|---|---|---|");
for (const kind of kinds) {
  const w = median(wall[kind]), c = median(cpu[kind]);
  console.log(
    `| ${kind} | ${w.toFixed(0)} ms (${mibps(w)} MiB/s) | ${c.toFixed(0)} ms | ${
      (w / median(wall.unsigned)).toFixed(3)
    }× | ${(c / median(cpu.unsigned)).toFixed(3)}× |`,
  );
}
console.log(
  `One verification in process (the digest known): Ed25519 ${edMicros.toFixed(0)} µs, ECDSA P-256 ${
    p256Micros.toFixed(0)
  } µs; against the unsigned upload's median server CPU: ${
    (edMicros / 1000 / median(cpu.unsigned) * 100).toFixed(3)
  } % and ${(p256Micros / 1000 / median(cpu.unsigned) * 100).toFixed(3)} %.`,
);
await Deno.remove(tmp, { recursive: true });
