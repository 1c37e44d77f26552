/**
 * `deno task test`: every suite, one after another, then one closing line "N passed, N failed".
 *   1. deno test over tests/ (server, device API, CLI, operations, browser e2e): real processes over HTTP
 *   2. the firmware suites again with the firmware files in a bucket (TEST_FIRMWARE_STORE=s3: s3rver, testing/s3.ts)
 *   3. vitest over web/ (component tests, happy-dom)
 * Extra arguments are passed to `deno test` (e.g. a file or --filter).
 */
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

const suites: Suite[] = [
  {
    name: "deno test (tests/)",
    args: ["test", "-A", "--parallel", ...(Deno.args.length ? Deno.args : ["tests/"])],
    parse(out) {
      const m = /(?:ok|FAILED) \| (\d+) passed.*?\| (\d+) failed/.exec(stripAnsi(out));
      return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
    },
  },
];
/** Every rule of firmware uploads, downloads and the file store, run on a bucket as on the disk (CONTRACT §10). */
const BUCKET_SUITES = [
  "tests/files/",
  "tests/server/firmwares.test.ts",
  "tests/server/firmware_check.test.ts",
  "tests/device/firmware.test.ts",
  "tests/audit/firmwares.test.ts",
  "tests/cli/firmware.test.ts",
];
if (!Deno.args.length) {
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
for (const suite of suites) {
  console.log(`\n=== ${suite.name}`);
  const child = new Deno.Command(deno, {
    args: suite.args,
    cwd: ROOT,
    env: suite.env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
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
  if (code !== 0 && counts.failed === 0) {
    console.log(`!!! ${suite.name} exited with ${code}`);
    broken = true;
  }
}
console.log(`\n${passed} passed, ${failed} failed`);
Deno.exit(failed || broken ? 1 : 0);
