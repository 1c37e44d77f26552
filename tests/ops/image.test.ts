/**
 * The runtime-only image (docs/OPERATIONS.md, "What the image holds"), checked on its file tree built without docker
 * (testing/image_tree.ts): the server's npm dependencies only, no tests or fixtures, and every task the image documents
 * working with no network at all (a fresh DENO_DIR, an npm registry that refuses every connection).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildImageTree } from "../../testing/image_tree.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const readJson = async (path: string) => JSON.parse(await Deno.readTextFile(join(ROOT, path)));

/** npm packages that serve tests, benches and the web build: none may be in the image. */
const NOT_IN_IMAGE = [
  "lighthouse",
  "playwright-core",
  "vitest",
  "happy-dom",
  "@testing-library/",
  "s3rver",
  "autocannon",
  "axe-core",
  "esbuild",
  "primereact",
  "primeicons",
  "react",
  "react-dom",
  "chart.js",
  "commander",
  "rollup",
];
const packageName = (key: string) => key.replace(/^(@?[^@]+)@.*$/, "$1");
const forbidden = (name: string) => NOT_IN_IMAGE.some((t) => t.endsWith("/") ? name.startsWith(t) : name === t);

Deno.test("the image's import map is the root's, less the test and build tools; its lock pins what deno.lock pins", async () => {
  const [root, image] = [await readJson("deno.json"), await readJson("deploy/image/deno.json")];
  for (const [name, target] of Object.entries(image.imports)) {
    assert.equal(target, root.imports[name], `deploy/image/deno.json's "${name}" must be the root deno.json's`);
    assert.ok(!forbidden(name), `${name} is a test or build tool`);
  }
  const [rootLock, imageLock] = [await readJson("deno.lock"), await readJson("deploy/image/deno.lock")];
  const packages = Object.keys(imageLock.npm);
  for (const key of packages) {
    assert.equal(imageLock.npm[key].integrity, rootLock.npm[key]?.integrity, `${key}: not as deno.lock pins it`);
  }
  const tools = packages.map(packageName).filter(forbidden);
  assert.deepEqual(tools, [], `the runtime dependency tree holds test or build tools: ${tools.join(", ")}`);
  console.log(`runtime npm packages: ${packages.length} (deno.lock: ${Object.keys(rootLock.npm).length})`);
});

Deno.test("the image's tree: server deps only, no tests or fixtures; user, backup, restore, audit-verify offline", async () => {
  await using tree = await buildImageTree();
  const installed = [...Deno.readDirSync(join(tree.dir, "node_modules/.deno"))]
    .map((e) => e.name).filter((n) => !n.startsWith("."))
    .map((n) => packageName(n.replace(/^@([^+]+)\+/, "@$1/")));
  assert.ok(installed.includes("hono") && installed.includes("postgres"), `installed: ${installed.join(", ")}`);
  assert.deepEqual(installed.filter(forbidden), [], "test or build tools in the image's node_modules");
  const top = [...Deno.readDirSync(tree.dir)].map((e) => e.name).sort();
  assert.deepEqual(top, ["deno.json", "deno.lock", "node_modules", "scripts", "server", "shared", "web"]);

  const data = join(tree.dir, "data"), restored = join(tree.dir, "restored"), backup = join(tree.dir, "backup");
  const offline = {
    DENO_DIR: await Deno.makeTempDir({ prefix: "image-deno-dir-" }),
    NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
    DENO_NO_UPDATE_CHECK: "1",
    HTTPS_PROXY: "http://127.0.0.1:9",
    HTTP_PROXY: "http://127.0.0.1:9",
  };
  const task = async (args: string[], env: Record<string, string>, stdin = "") => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", ...args],
      cwd: tree.dir,
      env: { ...offline, ...env },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
    const out = await child.output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, `deno task ${args.join(" ")} (offline) exited ${out.code}:\n${text}`);
    assert.doesNotMatch(text, /Download/, `deno task ${args.join(" ")} reached for the network:\n${text}`);
    return text;
  };
  try {
    const env = { DATA_DIR: data, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
    await task(["user", "add", "ops@example.com", "--role", "admin"], env, "a-long-password-0123\n");
    await task(["backup", backup], env);
    await task(["restore", backup], { ...env, DATA_DIR: restored });
    assert.match(await task(["audit-verify"], { ...env, DATA_DIR: restored }), /\d+ entr/);
  } finally {
    await Deno.remove(offline.DENO_DIR, { recursive: true });
  }
});
