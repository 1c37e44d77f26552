/**
 * A simulated fleet against a running console's device API:
 *   deno run -A scripts/simulate-fleet.ts --url http://127.0.0.1:8000 --key $DEVICE_API_KEY --devices 500 \
 *     [--concurrency 50] [--rounds 1] [--download] [--prefix sim-] [--json]
 *     [--auth token [--wait 60] [--poll 2] [--tokens tokens.json]] [--report [--fail-rate 0.05] [--state fleet.json]]
 * Each device checks in (`--rounds` times) and, with `--download`, fetches the firmware its config names and
 * verifies size and sha256. With `--auth token` (the server's DEVICE_AUTH=token) `--key` is the enrolment key: each
 * device enrols, keeps enrolling every `--poll` seconds while it is pending (for at most `--wait` seconds), then checks
 * in with its own token; `--tokens` keeps the tokens in a file (mode 0600) so a second run checks in without enrolling.
 * With `--report`, a device offered a firmware it has not installed reports downloading ->
 * installing -> installed, or failed for the share `--fail-rate` of devices (stable per device and firmware);
 * `--state` keeps what each device installed between runs. Prints requests/s, latency percentiles and errors; exits 1 when any request failed.
 * The simulator itself is testing/simulate_fleet.ts.
 */
import { Command, InvalidArgumentError } from "commander";
import { formatSummary, simulateFleet } from "../testing/simulate_fleet.ts";

function positiveOrZero(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a whole number.");
  return Number(value);
}

function rate(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError("must be a share from 0 to 1, e.g. 0.05.");
  return n;
}

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError("must be a whole number of at least 1.");
  }
  return Number(value);
}

if (import.meta.main) {
  const program = new Command("simulate-fleet")
    .description("Simulate devices checking in (and downloading firmware) against the console's device API.")
    .option("--url <url>", "console origin", Deno.env.get("CONSOLE_URL") ?? "http://127.0.0.1:8000")
    .option("--key <key>", "the DEVICE_API_KEY (default: $DEVICE_API_KEY)", Deno.env.get("DEVICE_API_KEY"))
    .requiredOption("--devices <n>", "number of simulated devices", positiveInt)
    .option("--concurrency <c>", "requests in flight at once", positiveInt, 50)
    .option("--rounds <r>", "check-ins per device", positiveInt, 1)
    .option("--download", "download and verify each device's firmware", false)
    .option("--report", "report update progress for a firmware not installed yet", false)
    .option("--fail-rate <share>", "with --report: the share (0-1) of devices whose installation fails", rate, 0)
    .option("--state <file>", "with --report: a JSON file of what each device installed, kept between runs")
    .option("--prefix <p>", "device id prefix", "sim-")
    .option("--json", "print the summary as JSON", false)
    .option("--auth <mode>", "shared (one key) or token (enrol, then a token per device)", "shared")
    .option("--wait <s>", "token mode: seconds a pending device keeps enrolling", positiveOrZero, 0)
    .option("--poll <s>", "token mode: seconds between two enrolments of a pending device", positiveInt, 2)
    .option("--tokens <file>", "token mode: read and save device tokens in this JSON file")
    .exitOverride((err) => Deno.exit(err.exitCode === 0 ? 0 : 2));
  program.parse(["deno", "simulate-fleet", ...Deno.args]);
  const o = program.opts();
  if (!o.key) {
    console.error("simulate-fleet: give the device API key with --key or DEVICE_API_KEY.");
    Deno.exit(2);
  }
  if (o.auth !== "shared" && o.auth !== "token") {
    console.error("simulate-fleet: --auth must be shared or token.");
    Deno.exit(2);
  }
  const tokens = new Map<string, string>();
  if (o.tokens) {
    try {
      for (const [id, token] of Object.entries(JSON.parse(await Deno.readTextFile(o.tokens)))) {
        tokens.set(id, String(token));
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        console.error(`simulate-fleet: ${o.tokens}: ${err instanceof Error ? err.message : err}`);
        Deno.exit(2);
      }
    }
  }
  let installed = new Map<string, string>();
  if (o.state) {
    try {
      installed = new Map(Object.entries(JSON.parse(await Deno.readTextFile(o.state))));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  const summary = await simulateFleet({
    auth: o.auth,
    waitMs: o.wait * 1000,
    pollMs: o.poll * 1000,
    tokens,
    url: o.url,
    key: o.key,
    devices: o.devices,
    concurrency: o.concurrency,
    rounds: o.rounds,
    download: o.download,
    prefix: o.prefix,
    report: o.report,
    failRate: o.failRate,
    installed,
  });
  if (o.tokens && o.auth === "token") {
    await Deno.writeTextFile(o.tokens, JSON.stringify(Object.fromEntries(tokens), null, 2), { mode: 0o600 });
  }
  if (o.state) await Deno.writeTextFile(o.state, JSON.stringify(Object.fromEntries(installed)));
  console.log(o.json ? JSON.stringify(summary) : formatSummary(summary));
  Deno.exit(summary.errorCount ? 1 : 0);
}
