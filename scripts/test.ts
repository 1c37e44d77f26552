/**
 * `deno task test`: every suite, one after another, then one closing line "N passed, N failed".
 *   1. deno test over tests/ (server, device API, CLI, operations, browser e2e): real processes over HTTP; then the
 *      frozen-database fault tests alone (ALONE)
 *   2. the server, device API, CLI and route suites again on PostgreSQL (POSTGRES_SUITES)
 *   3. the firmware suites again with the firmware files in a bucket (TEST_FIRMWARE_STORE=s3: s3rver, testing/s3.ts)
 *   4. vitest over web/ (component tests, happy-dom)
 * Extra arguments are passed to `deno test` (e.g. a file or --filter).
 *
 * `deno task test:fast` (`--fast`): the inner loop, under 2 minutes: the unit tests and the in-process route tests
 * (tests/routes/, the real app on real SQLite stores through app.request()), the store conformance suite on SQLite and
 * the architecture test: every test file that, itself or through the tests/ helpers it imports, starts no server
 * process, browser, PostgreSQL cluster, bucket or CLI (FAST_EXCLUDES), outside the folders made of those (SLOW_FOLDERS).
 * No second engine, no bucket, no vitest.
 */
import { startPostgres, type TestPostgres } from "../testing/postgres.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const deno = Deno.execPath();

interface Suite {
  name: string;
  args: string[];
  env?: Record<string, string>;
  parse: (out: string) => { passed: number; failed: number } | null;
}

const ESC = String.fromCharCode(27);
const stripAnsi = (s: string) => s.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");

/** What makes a test file too slow for the inner loop: a server or CLI process, a browser, a cluster, a bucket. */
const FAST_EXCLUDES = [
  "startServer(",
  "runCli(",
  "chromium",
  "startPostgres(",
  "sharedPostgres(",
  "startBucket(",
  "s3rver",
];
/** Folders of processes, browsers, clusters, buckets and the bench: never in the fast tier. */
const SLOW_FOLDERS = ["tests/e2e", "tests/ops", "tests/postgres", "tests/s3", "tests/bench"];

/** The test files under tests/ that meet none of FAST_EXCLUDES, following their imports inside tests/. */
async function fastFiles(): Promise<string[]> {
  const slow = new Map<string, boolean>();
  const isSlow = async (path: string): Promise<boolean> => {
    if (slow.has(path)) return slow.get(path)!;
    slow.set(path, false);
    // A specifier in a string of a test (the architecture test's samples) names no file.
    const source = await Deno.readTextFile(path).catch(() => "");
    let found = FAST_EXCLUDES.some((marker) => source.includes(marker));
    for (const m of source.matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)) {
      const target = new URL(m[1], `file://${path}`).pathname;
      if (!found && target.startsWith(`${ROOT}tests/`)) found = await isSlow(target);
    }
    slow.set(path, found);
    return found;
  };
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(`${ROOT}${dir}`)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory && !SLOW_FOLDERS.includes(path)) await walk(path);
      else if (e.name.endsWith(".test.ts") && !(await isSlow(`${ROOT}${path}`))) files.push(path);
    }
  };
  await walk("tests");
  return files.sort();
}

/**
 * The fault tests that time a frozen PostgreSQL's 503s and both replicas' recovery against the contract's 2 s (with the
 * margin of docs/DECISIONS.md, "Stores fail fast"): run alone after the first suite, so that their bound measures the
 * servers under the fault, not whichever other file shares the two cores at that moment (docs/DECISIONS.md,
 * "Frozen PostgreSQL: one probe while frozen; the fault tests alone").
 */
const ALONE = ["tests/postgres/fault_replicas.test.ts", "tests/postgres/tls.test.ts"];

const fast = Deno.args[0] === "--fast";
const args = fast ? Deno.args.slice(1) : Deno.args;
const suites: Suite[] = [
  {
    name: fast ? "deno test (tests/, the fast tier)" : "deno test (tests/)",
    args: [
      "test",
      "-A",
      "--parallel",
      ...(fast ? [...args, ...await fastFiles()] : args.length ? args : [`--ignore=${ALONE.join(",")}`, "tests/"]),
    ],
    parse: parseDenoTest,
  },
];
if (!fast && !args.length) {
  suites.push({
    name: "deno test (the frozen-database fault tests, alone)",
    args: ["test", "-A", ...ALONE],
    parse: parseDenoTest,
  });
}

function parseDenoTest(out: string) {
  const m = /(?:ok|FAILED) \| (\d+) passed.*?\| (\d+) failed/.exec(stripAnsi(out));
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
}
/**
 * The server, device API, CLI and in-process route suites again on PostgreSQL (one throwaway cluster for the run, a
 * database per test server or test app): docs/REQUIREMENTS.md §10, "one test suite proves it on each". Only the files that start a
 * server or the app in process run again (the others never meet the engine), less two about the upload pipeline's memory and parsing, which does not
 * touch the database (run once, on SQLite, to keep the whole run short). Of the hostile-input audit, one file runs on
 * both: tests/audit/text_rule.test.ts sends every sample with the text rule's cases and fuzzes every operation, then
 * runs audit-verify (docs/REQUIREMENTS.md §17); the rest of tests/audit stays on SQLite.
 */
const POSTGRES_SUITES = [
  "tests/server/",
  "tests/device/",
  "tests/cli/",
  "tests/routes/",
  "tests/audit/text_rule.test.ts",
  // §19's field conditions whose figures the issue asks on both engines: the bucket killed or frozen mid-upload, 1,000
  // half-open connections, signals during an upload and to a cancelled CLI.
  "tests/s3/fault.test.ts",
  "tests/ops/slow_clients.test.ts",
  "tests/ops/signals.test.ts",
];
const SQLITE_ONLY = new Set<string>(["tests/cli/upload_memory.test.ts", "tests/server/upload_parts.test.ts"]);
/** A server process (startServer) or the app in process (tests/routes/app.ts's testApp): both follow TEST_ENGINE. */
const startsServer = async (file: string) =>
  /\b(startServer|testApp)\(/.test(await Deno.readTextFile(`${ROOT}${file}`));
if (!fast && (!args.length || Deno.env.get("TEST_ENGINE") === "postgres")) {
  const files: string[] = [];
  const wanted = args.length ? args.filter((a) => !a.startsWith("-")) : POSTGRES_SUITES;
  for (const dir of wanted) {
    const path = `${ROOT}${dir}`;
    if (!(await Deno.stat(path)).isDirectory) {
      files.push(dir);
      continue;
    }
    for await (const e of Deno.readDir(path)) {
      const file = `${dir.replace(/\/$/, "")}/${e.name}`;
      if (!e.isFile || !e.name.endsWith(".test.ts") || SQLITE_ONLY.has(file)) continue;
      // A folder named on the command line runs whole; the default suites only where the engine matters.
      if (args.length > 0 || await startsServer(file)) {
        files.push(file);
      }
    }
  }
  if (args.length) suites.length = 0;
  // `deno test` with no file runs everything: never what a named folder asked for.
  if (!files.length) throw new Error(`No test files on PostgreSQL in ${wanted.join(" ")}`);
  suites.push({
    name: "deno test on PostgreSQL (tests/server, tests/device, tests/cli, tests/routes, text_rule, §19's field tests)",
    args: ["test", "-A", "--parallel", ...args.filter((a) => a.startsWith("-")), ...files.sort()],
    env: { TEST_ENGINE: "postgres" },
    parse: parseDenoTest,
  });
}
/** Every rule of firmware uploads, downloads and the file store, run on a bucket as on the disk (docs/REQUIREMENTS.md §10). */
const BUCKET_SUITES = [
  "tests/files/",
  "tests/server/firmwares.test.ts",
  "tests/server/firmwares_put.test.ts",
  "tests/server/firmwares_swu.test.ts",
  "tests/server/firmware_check.test.ts",
  "tests/device/firmware.test.ts",
  "tests/audit/firmwares.test.ts",
  "tests/cli/firmware.test.ts",
];
if (!fast && !args.length) {
  suites.push({
    name: "deno test (firmware in a bucket)",
    args: ["test", "-A", "--parallel", ...BUCKET_SUITES],
    env: { TEST_FIRMWARE_STORE: "s3" },
    parse: suites[0].parse,
  });
  suites.push({
    name: "vitest (web/)",
    args: ["run", "-A", "npm:vitest@^3.2.4", "run", "--config", "web/vitest.config.ts"],
    parse(out) {
      const clean = stripAnsi(out);
      const line = /Tests\s+([^\n]+)/.exec(clean)?.[1];
      if (!line) return null;
      return {
        passed: Number(/(\d+) passed/.exec(line)?.[1] ?? 0),
        failed: Number(/(\d+) failed/.exec(line)?.[1] ?? 0),
      };
    },
  });
}

let passed = 0, failed = 0, broken = false;
/** What each failing suite said of its failures, repeated after the closing line: CI logs are often read from the end. */
const recaps: string[] = [];

/** Deno's FAILURES list and the start of its ERRORS section; vitest's FAIL lines. */
function failureRecap(out: string): string {
  const lines = stripAnsi(out).split("\n");
  const at = (title: string) => lines.findIndex((l) => l.trim() === title);
  const errors = at("ERRORS"), failures = at("FAILURES");
  if (failures >= 0) {
    const list = lines.slice(failures + 1).filter((l) => l.includes("=>"));
    const detail = errors >= 0 ? lines.slice(errors + 1, failures).filter((l) => l.trim()).slice(0, 60) : [];
    return [...list, "", ...detail].join("\n");
  }
  return lines.filter((l) => /^\s*(FAIL|×|❯ .*\.test\.)/.test(l)).slice(0, 60).join("\n");
}
/** Whether a suite's files include any that run on PostgreSQL. */
const needsPostgres = (suite: Suite) =>
  suite.env?.TEST_ENGINE === "postgres" ||
  suite.args.some((a) => /^tests\/?$|^tests\/(stores|postgres)(\/|$)|postgres/.test(a));

let cluster: TestPostgres | undefined;
let clusterError: string | undefined;
for (const suite of suites) {
  console.log(`\n=== ${suite.name}`);
  const env = { ...suite.env };
  // One throwaway PostgreSQL cluster for the whole run (the conformance, replica and fault tests and the suites on
  // PostgreSQL make their databases in it). Missing binaries fail the run, naming the package: never a silent skip.
  if (suite.args[0] === "test" && needsPostgres(suite)) {
    if (!cluster && !clusterError) {
      try {
        cluster = await startPostgres();
        const started = cluster;
        globalThis.addEventListener("unload", () => started.disposeSync());
        Deno.addSignalListener("SIGINT", () => {
          started.disposeSync();
          Deno.exit(130);
        });
      } catch (err) {
        clusterError = err instanceof Error ? err.message : String(err);
        console.log(`!!! ${clusterError}`);
        broken = true;
      }
    }
    if (cluster) env.TEST_POSTGRES_URL = cluster.adminUrl;
    else if (env.TEST_ENGINE === "postgres") {
      console.log(`!!! ${suite.name}: not run: ${clusterError}`);
      continue;
    }
  }
  const child = new Deno.Command(deno, { args: suite.args, cwd: ROOT, env, stdout: "piped", stderr: "inherit" })
    .spawn();
  let out = "";
  const dec = new TextDecoder();
  for await (const chunk of child.stdout) {
    out += dec.decode(chunk, { stream: true });
    await Deno.stdout.write(chunk);
  }
  const { code } = await child.status;
  const counts = suite.parse(out);
  if (!counts) {
    console.log(`!!! ${suite.name}: no test summary found (exit ${code})`);
    broken = true;
    continue;
  }
  passed += counts.passed;
  failed += counts.failed;
  if (counts.failed || code !== 0) recaps.push(`--- ${suite.name} (exit ${code})\n${failureRecap(out)}`);
  if (code !== 0 && counts.failed === 0) {
    console.log(`!!! ${suite.name} exited with ${code}`);
    broken = true;
  }
}
await cluster?.[Symbol.asyncDispose]();
if (recaps.length) console.log(`\n=== what failed\n${recaps.join("\n\n")}`);
console.log(`\n${passed} passed, ${failed} failed`);
Deno.exit(failed || broken ? 1 : 0);
