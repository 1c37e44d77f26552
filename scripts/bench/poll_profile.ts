/**
 * Where a quiet poll's server time goes on PostgreSQL (issue 35): a server of the tree given on a throwaway cluster
 * under V8's sampling profiler (`--prof`), quiet polls by 200 devices for the seconds given (as `deno task bench --polls`
 * sends them), then `node --prof-process`'s summary and its heaviest JavaScript entries, with the share of the
 * PostgreSQL driver's (npm postgres) code among the JavaScript ticks.
 *   deno run -A scripts/bench/poll_profile.ts <tree> <checkin|poll> <seconds>
 */
import { startPostgres } from "../../testing/postgres.ts";
import { SERVER_V8_FLAGS } from "../../server/v8_flags.ts";
import { serverEnv } from "./steps.ts";
import { checkins, polls, registerDevices } from "./device_polls.ts";
import { DENO, freePort, waitUntilUp } from "./util.ts";

const [tree, kind, seconds] = Deno.args;
if (!tree || !["checkin", "poll"].includes(kind) || !(Number(seconds) > 0)) {
  console.error("usage: poll_profile.ts <tree> <checkin|poll> <seconds>");
  Deno.exit(2);
}
const DEVICES = 200;
const root = new URL(`${tree}/`, `file://${Deno.cwd()}/`).pathname;
const dir = await Deno.makeTempDir({ prefix: "poll-profile-" });
await using pg = await startPostgres();
const port = freePort();
const child = new Deno.Command(DENO, {
  args: [
    "run",
    "-A",
    `--v8-flags=${SERVER_V8_FLAGS},--prof,--logfile=${dir}/v8.log,--no-logfile-per-isolate`,
    "server/main.ts",
  ],
  cwd: root,
  env: {
    ...serverEnv(dir),
    LOG_LEVEL: "quiet",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: await pg.createDatabase(),
  },
  stdout: "null",
  stderr: "inherit",
}).spawn();
const url = `http://127.0.0.1:${port}`;
await waitUntilUp(url);
await registerDevices(url, DEVICES);
const loadOf = (s: number) => kind === "checkin" ? checkins(url, s, DEVICES, DEVICES) : polls(url, s, DEVICES, DEVICES);
await loadOf(2);
const res = await loadOf(Number(seconds));
console.log(`${kind}: ${res.requests} answered, ${res.rps.toFixed(0)} req/s (load ${Deno.loadavg()[0].toFixed(1)})`);
child.kill("SIGTERM");
await child.status;
const out = new TextDecoder().decode(
  (await new Deno.Command("node", { args: ["--prof-process", `${dir}/v8.log`], stderr: "null" }).output()).stdout,
);
const summary = out.slice(out.indexOf(" [Summary]:"), out.indexOf(" [C++ entry points]:"));
console.log(summary.trim());
// The JavaScript section: "ticks total nonlib name" rows; the driver's files are under node_modules/postgres.
const js = out.slice(out.indexOf(" [JavaScript]:"), out.indexOf(" [C++]:")).split("\n").slice(2);
let all = 0, driver = 0;
for (const line of js) {
  const ticks = Number(line.trim().split(/\s+/)[0]);
  if (!Number.isFinite(ticks)) continue;
  all += ticks;
  if (/node_modules\/(\.deno\/)?postgres|npm\/registry\.npmjs\.org\/postgres/.test(line)) driver += ticks;
}
console.log(`JavaScript ticks: ${all}; the driver's (npm postgres): ${driver} (${(100 * driver / all).toFixed(1)} %)`);
console.log(js.slice(0, 25).join("\n"));
// The shared libraries' ticks (the deno binary itself: the runtime's ops, HTTP, sockets) and the bottom-up profile's
// heaviest entries with their JavaScript callers.
console.log(out.slice(out.indexOf(" [Shared libraries]:"), out.indexOf(" [JavaScript]:")).trim());
const bottomUp = out.slice(out.indexOf(" [Bottom up (heavy) profile]:")).split("\n");
console.log(bottomUp.slice(0, Number(Deno.env.get("PROFILE_LINES") ?? 60)).join("\n"));
await Deno.remove(dir, { recursive: true });
