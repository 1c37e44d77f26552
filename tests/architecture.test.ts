/**
 * The layers of the code base, checked on the imports of every .ts/.tsx file: `import … from`, `export … from`,
 * `import "…"` and `import("…")` (also in type positions). A failure names each file, line and import that crosses a
 * layer. These seams keep the database engine behind server/db/ and the fixtures out of the product code. Two rules
 * hold for the whole tree: no arrow points up the stack (shared/ ← server/, cli/, web/ ← testing/ ← scripts/, tests/),
 * and the folders' import graph has no circle (a folder importing one that imports it back, however far round).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
/** Folders that hold no source of ours (repository-relative). Dot-files and dot-folders are read like any other. */
const SKIPPED = new Set([".git", "node_modules", "web/dist", "data", "data-demo"]);

interface SourceImport {
  specifier: string;
  line: number;
}

/** Strings are kept (an import's specifier is one); comments become spaces, so line numbers stay right. */
const STRING_OR_COMMENT = /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;
/** `import x from "…"`, `import type { X } from "…"`, `import "…"`, `export * from "…"`, over several lines too. */
const STATIC = /(?:^|[\n;])[ \t]*(?:import|export)\b(?:[^;"'`]*?\bfrom)?\s*(["'])([^"'\n]+)\1/g;
/** `import("…")`, awaited or as a type (`import("…").Name`). */
const DYNAMIC = /\bimport\s*\(\s*(["'`])([^"'`\n]+)\1\s*\)/g;

/** The modules a source file imports, in order of appearance. */
function readImports(source: string): SourceImport[] {
  const code = source.replace(STRING_OR_COMMENT, (text, str) => str ?? text.replace(/[^\n]/g, " "));
  const found: { specifier: string; at: number }[] = [];
  for (const pattern of [STATIC, DYNAMIC]) {
    for (const m of code.matchAll(pattern)) found.push({ specifier: m[2], at: m.index + m[0].lastIndexOf(m[2]) });
  }
  return found.sort((a, b) => a.at - b.at).map(({ specifier, at }) => ({
    specifier,
    line: code.slice(0, at).split("\n").length,
  }));
}

interface Edge {
  /** The importing file, relative to the repository root. */
  file: string;
  line: number;
  specifier: string;
  /** A relative specifier resolved to a repository-relative path; a package or `node:` specifier as written. */
  target: string;
}

async function sourceFiles(dir = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (SKIPPED.has(path)) continue;
    if (entry.isDirectory) files.push(...await sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name)) files.push(path);
  }
  return files.sort();
}

async function importGraph(): Promise<Edge[]> {
  const edges: Edge[] = [];
  for (const file of await sourceFiles()) {
    const url = new URL(file, ROOT);
    for (const { specifier, line } of readImports(await Deno.readTextFile(url))) {
      const relative = specifier.startsWith("./") || specifier.startsWith("../");
      const target = relative
        ? decodeURIComponent(new URL(specifier, url).pathname).replace(ROOT.pathname, "")
        : specifier;
      edges.push({ file, line, specifier, target });
    }
  }
  return edges;
}

let loaded: Promise<Edge[]> | undefined;
const graph = () => loaded ??= importGraph();

const under = (...dirs: string[]) => (path: string) => dirs.some((d) => path.startsWith(d));
const isHono = (target: string) => /^(npm:\/?)?hono(@[^/]*)?(\/|$)/.test(target);
/** scripts/ files that only make import fixtures may write SQLite import files themselves. */
const IMPORT_FIXTURE_SCRIPTS = ["scripts/make-import-db.ts"];
/** What a feature of the web app offers the others: its queries and mutations. */
const FEATURE_PUBLIC_FILES = ["api.ts"];
const featureOf = (path: string) => /^web\/src\/features\/([^/]+)\/(.+)$/.exec(path);

interface Rule {
  name: string;
  applies: (file: string) => boolean;
  forbids: (target: string, file: string) => boolean;
}

const RULES: Rule[] = [
  {
    name: "server/db/ imports neither Hono nor the HTTP layer (errors.ts, routes/, app.ts, auth/, lib/)",
    applies: under("server/db/"),
    forbids: (t) =>
      isHono(t) || t === "server/errors.ts" || t === "server/app.ts" ||
      under("server/routes/", "server/auth/", "server/lib/")(t),
  },
  {
    name: "node:sqlite is imported only by server/db/, server/import/, testing/ and the import-fixture scripts",
    applies: (f) => !under("server/db/", "server/import/", "testing/")(f) && !IMPORT_FIXTURE_SCRIPTS.includes(f),
    forbids: (t) => t === "node:sqlite",
  },
  {
    name: "the PostgreSQL driver is imported only by server/db/postgres/ and testing/",
    applies: (f) => !under("server/db/postgres/", "testing/")(f),
    forbids: (t) => t === "postgres" || t.startsWith("npm:postgres"),
  },
  {
    name: "server/routes/ uses the store interfaces of server/db/, not server/db/sqlite/ or server/db/postgres/",
    applies: under("server/routes/"),
    forbids: under("server/db/sqlite/", "server/db/postgres/"),
  },
  {
    name: "server/lib/ imports neither server/db/ nor server/routes/",
    applies: under("server/lib/"),
    forbids: under("server/db/", "server/routes/"),
  },
  {
    name: "scripts/ does not import tests/",
    applies: under("scripts/"),
    forbids: under("tests/"),
  },
  {
    name: "tests/ does not import scripts/",
    applies: under("tests/"),
    forbids: under("scripts/"),
  },
  {
    name: "tests/ and scripts/ do not import server/demo/ (shared fixtures live in testing/)",
    applies: under("tests/", "scripts/"),
    forbids: under("server/demo/"),
  },
  {
    name: "shared/ imports nothing from server/, web/, cli/, tests/, scripts/ or testing/",
    applies: under("shared/"),
    forbids: under("server/", "web/", "cli/", "tests/", "scripts/", "testing/"),
  },
  {
    name: "web/src/components/ and web/src/lib/ import nothing from web/src/features/ or web/src/app/",
    applies: under("web/src/components/", "web/src/lib/"),
    forbids: under("web/src/features/", "web/src/app/"),
  },
  {
    name: "a web feature imports neither web/src/app/ nor another feature's internals (only its api.ts)",
    applies: under("web/src/features/"),
    forbids: (t, f) => {
      if (under("web/src/app/")(t)) return true;
      const [own, other] = [featureOf(f), featureOf(t)];
      return !!own && !!other && own[1] !== other[1] && !FEATURE_PUBLIC_FILES.includes(other[2]);
    },
  },
];

/** The stack, bottom first: a file imports only from its own level or below. */
const LEVELS: [level: number, folder: string][] = [
  [0, "shared/"],
  [1, "server/"],
  [1, "cli/"],
  [1, "web/"],
  [2, "testing/"],
  [3, "scripts/"],
  [3, "tests/"],
];
const levelOf = (path: string) => LEVELS.find(([, folder]) => path.startsWith(folder))?.[0];

RULES.push({
  name: "no arrow up: shared/ ← server/, cli/, web/ ← testing/ ← scripts/, tests/ (the product ships without fixtures)",
  applies: (f) => levelOf(f) !== undefined,
  forbids: (t, f) => {
    const [from, to] = [levelOf(f), levelOf(t)];
    return from !== undefined && to !== undefined && to > from;
  },
});

/**
 * The node a file counts as in the circle check: its folder; a web feature's api.ts stands alone, being what the other
 * features may import (the screens of two features may use each other's queries).
 */
const folderOf = (path: string) =>
  featureOf(path)?.[2] === "api.ts" ? path : path.slice(0, path.lastIndexOf("/") + 1) || "./";
/** A folder and the folders inside it are one unit (db/mod.ts opens db/sqlite/, which uses db/errors.ts). */
const nested = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);

/** The folders that import each other round a circle (strongly connected components of the folder graph, Tarjan). */
export function folderCircles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (nested(from, to)) continue;
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
    if (!next.has(to)) next.set(to, new Set());
  }
  let counter = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [];
  const onStack = new Set<string>(), circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return circles;
}

Deno.test("architecture: no circle between folders (lib/ ↔ files/, db/types ↔ db/rules, …)", async () => {
  const local = (await graph()).filter((e) => levelOf(e.target) !== undefined);
  const edges = local.map((e) => ({ from: folderOf(e.file), to: folderOf(e.target) }));
  const circles = folderCircles(edges).map((folders) => {
    const inside = local.filter((e) =>
      folders.includes(folderOf(e.file)) && folders.includes(folderOf(e.target)) &&
      !nested(folderOf(e.file), folderOf(e.target))
    );
    return `${folders.join(" ↔ ")}:\n    ${
      inside.map((e) => `${e.file}:${e.line} imports "${e.specifier}"`).join("\n    ")
    }`;
  });
  if (circles.length) assert.fail(`folders that import each other:\n  ${circles.join("\n  ")}`);
});

Deno.test("architecture: the circle finder sees a circle however far round, and nothing in a tree", () => {
  assert.deepEqual(folderCircles([{ from: "a/", to: "b/" }, { from: "b/", to: "c/" }, { from: "c/", to: "a/" }]), [[
    "a/",
    "b/",
    "c/",
  ]]);
  assert.deepEqual(folderCircles([{ from: "a/", to: "b/" }, { from: "a/", to: "c/" }, { from: "b/", to: "c/" }]), []);
  assert.deepEqual(
    folderCircles([{ from: "a/", to: "a/" }, { from: "a/", to: "a/b/" }, { from: "a/b/", to: "a/" }]),
    [],
  );
});

for (const rule of RULES) {
  Deno.test(`architecture: ${rule.name}`, async () => {
    const crossings = (await graph())
      .filter((e) => rule.applies(e.file) && rule.forbids(e.target, e.file))
      .map((e) => `${e.file}:${e.line} imports "${e.specifier}"`);
    if (crossings.length) assert.fail(`${rule.name}; crossed by:\n  ${crossings.join("\n  ")}`);
  });
}

Deno.test("architecture: the import reader sees every kind of import and nothing in comments", async () => {
  const source = [
    `import assert from "node:assert/strict";`,
    `import type { A } from './a.ts';`,
    `import {`,
    `  b,`,
    `  c,`,
    `} from "../b.ts";`,
    `import "./side_effect.ts";`,
    `export * from "./d.ts"; export { e } from "./e.ts";`,
    `export type { F } from "./f.ts";`,
    `const g = await import("./g.ts");`,
    `let h: import("./h.ts").H;`,
    `// import { x } from "./commented.ts";`,
    `/* import("./commented_too.ts") */ const url = "http://example.com/from";`,
    `export const fromText = "not an import"; const from = 1;`,
  ].join("\n");
  assert.deepEqual(readImports(source), [
    { specifier: "node:assert/strict", line: 1 },
    { specifier: "./a.ts", line: 2 },
    { specifier: "../b.ts", line: 6 },
    { specifier: "./side_effect.ts", line: 7 },
    { specifier: "./d.ts", line: 8 },
    { specifier: "./e.ts", line: 8 },
    { specifier: "./f.ts", line: 9 },
    { specifier: "./g.ts", line: 10 },
    { specifier: "./h.ts", line: 11 },
  ]);

  const edges = await graph();
  const files = new Set(edges.map((e) => e.file));
  for (const dir of ["server/", "shared/", "web/src/", "cli/", "scripts/", "testing/", "tests/"]) {
    assert.ok([...files].some((f) => f.startsWith(dir)), `no source file read under ${dir}`);
  }
  const has = (from: string, to: (target: string) => boolean) =>
    edges.some((e) => e.file.startsWith(from) && to(e.target));
  assert.ok(has("server/routes/", isHono), "server/routes/ imports hono");
  assert.ok(has("server/db/", (t) => t === "node:sqlite"), "server/db/ imports node:sqlite");
  assert.ok(has("server/db/postgres/", (t) => t === "postgres"), "server/db/postgres/ imports postgres");
  assert.ok(has("web/src/app/", under("web/src/features/")), "web/src/app/ imports the features");
});

/**
 * Files of server/ that may make a Response themselves: none of them answers a request through the app (which sets the
 * security headers and X-Request-Id on the context before the handler, and no longer looks at the answer after it) but
 * the lean routes, which set the same headers themselves (tests/server/lean_routes.test.ts compares their answers with
 * the app's).
 */
const OWN_RESPONSES: Record<string, string> = {
  "server/lean_routes.ts": "the hot device routes' answers below Hono, with the app's headers",
  "server/lib/compress.ts": "rebuilds the context's answer with all its headers",
  "server/files/xz_check.ts": "reads a child's stderr",
  "server/user.ts": "reads stdin",
  "server/shutdown.ts": "the stopping server's 503, before the app",
  "server/lib/direct_serve.ts":
    "the connection front's 431 and 500 before the app; a watched download with its headers",
};

Deno.test("architecture: answers are made through Hono's context (so they carry the security headers)", async () => {
  const found: string[] = [];
  for (const file of (await sourceFiles("server")).filter((f) => !(f in OWN_RESPONSES))) {
    const code = (await Deno.readTextFile(new URL(file, ROOT)))
      .replace(STRING_OR_COMMENT, (text, str) => str ?? text.replace(/[^\n]/g, " "));
    for (const [i, line] of code.split("\n").entries()) {
      if (/\bnew Response\s*\(|\bResponse\s*\.\s*(json|redirect|error)\s*\(/.test(line)) found.push(`${file}:${i + 1}`);
    }
  }
  assert.deepEqual(found, [], "make the answer with c.body(), c.json(), ... instead");
});

Deno.test("architecture: routes answered below Hono come from the route table (mount) and are wired once (app.ts)", async () => {
  const found: string[] = [];
  for (const file of await sourceFiles("server")) {
    const code = (await Deno.readTextFile(new URL(file, ROOT)))
      .replace(STRING_OR_COMMENT, (text, str) => str ?? text.replace(/[^\n]/g, " "));
    for (const [i, line] of code.split("\n").entries()) {
      if (/\.lean\.set\s*\(/.test(line) && file !== "server/mount.ts") found.push(`${file}:${i + 1} (lean.set)`);
      if (/\bleanFetch\s*\(/.test(line) && file !== "server/app.ts" && file !== "server/lean_routes.ts") {
        found.push(`${file}:${i + 1} (leanFetch)`);
      }
    }
  }
  assert.deepEqual(found, [], "a lean route is mounted with mount(api, route, handler, { lean }) only");
});
