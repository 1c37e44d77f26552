/**
 * `deno task build`: bundles the web console into web/dist with esbuild.
 *   web/dist/index.html          written from web/index.html with the hashed file names (no inline script)
 *   web/dist/assets/<name>-<hash>.{js,css,woff2,...}
 * Assets of earlier builds are kept for an hour so pages already open can still load their lazy chunks.
 */
import * as esbuild from "esbuild";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { ShellFrame } from "../web/src/components/ShellFrame.tsx";
import { brotliCompress, constants as zlib, gzip, gzipSync } from "node:zlib";
import { promisify } from "node:util";

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Files served precompressed (fonts in woff/woff2 and PNGs are compressed already). */
const COMPRESSIBLE = /\.(js|css|svg|ttf|eot|html)$/;

/**
 * Writes `<file>.br` (brotli, best quality) and `<file>.gz` (gzip -9) beside a file, when they are smaller: the
 * server sends them to clients that accept them (server/routes/web.ts). Done once per build, so no request pays it.
 */
export async function precompress(path: string): Promise<string[]> {
  const data = await Deno.readFile(path);
  const [br, gz] = await Promise.all([
    brotliAsync(data, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: data.byteLength },
    }),
    gzipAsync(data, { level: 9 }),
  ]);
  const out: string[] = [];
  for (const [ext, bytes] of [[".br", br], [".gz", gz]] as const) {
    if (bytes.byteLength >= data.byteLength) continue;
    await Deno.writeFile(`${path}${ext}.tmp`, bytes);
    await Deno.rename(`${path}${ext}.tmp`, `${path}${ext}`);
    out.push(`${path}${ext}`);
  }
  return out;
}

const ROOT = new URL("../", import.meta.url).pathname;
export const WEB_DIR = `${ROOT}web`;
export const DIST_DIR = `${WEB_DIR}/dist`;
const ASSETS = "assets";
const KEEP_OLD_ASSETS_MS = 60 * 60 * 1000;

/** Theme primary colour #078686 instead of the Lara teal. */
const RECOLOR: [string, string][] = [
  ["#14b8a6", "#078686"],
  ["#0d9488", "#066d6d"],
  ["#0f766e", "#055757"],
  ["#044848", "#044646"],
  ["#99f6e4", "#9fd8d8"],
  ["rgba(20, 184, 166,", "rgba(7, 134, 134,"],
];

/**
 * This theme release paints highlighted items (selected page, option, row) with the same dark teal as their
 * text, which hides the text: give those a light teal background instead (checkbox and radio boxes excepted).
 */
function fixHighlights(css: string): string {
  return css.replace(/([^{}]+)\{([^{}]*)\}/g, (rule, selector: string, body: string) => {
    if (!selector.includes(".p-highlight") || /checkbox|radiobutton|carousel/.test(selector)) return rule;
    if (!/color: #0f766e;/.test(body)) return rule;
    return `${selector}{${body.replace(/(background|border-color): #0f766e;/g, "$1: #e3f1f1;")}}`;
  });
}

/** One pass of replacements (so a colour replaced is not replaced again). */
function swap(text: string, map: Record<string, string>): string {
  const pattern = new RegExp(Object.keys(map).map((k) => k.replace(/[#()]/g, "\\$&")).join("|"), "g");
  return text.replace(pattern, (m) => map[m]);
}

/**
 * WCAG 2.1 AA contrast (4.5:1 for text; checked by axe in tests/e2e/accessibility.test.ts). White on the primary
 * #078686 is 4.4:1 and the theme's error, danger and warning texts are 2.7–3.9:1, so, in the theme's own colours
 * (before the recolouring below):
 * - white text on teal (buttons, badges): the fill one shade darker (#066d6d after recolouring: 6.2:1), hover and
 *   active one shade further;
 * - teal text on light backgrounds (outlined and text buttons, links, labels): the same darker shade (5.9:1);
 * - red text and fills (danger buttons, errors, invalid borders): #dc2626 / #c81e1e (4.8–5.5:1);
 * - warning messages: #8a5a00 on their light orange (5.5:1).
 * The brand teal #078686 stays on what is not text: focus rings, borders, checkbox and progress fills, icons.
 */
function fixContrast(css: string): string {
  return css.replace(/([^{}]+)\{([^{}]*)\}/g, (rule, selector: string, body: string) => {
    let b = body;
    if (/(^|[^-])color: #ffffff/.test(b) && /#14b8a6|#0d9488|#0f766e/.test(b)) {
      b = swap(b, { "#14b8a6": "#0d9488", "#0d9488": "#0f766e", "#0f766e": "#044848" });
    } else {
      b = b.replace(/(^|[^-])color: #14b8a6/g, "$1color: #0d9488");
    }
    if (selector.includes("danger")) b = swap(b, { "#ef4444": "#dc2626", "#dc2626": "#b91c1c", "#b91c1c": "#991b1b" });
    b = b.replaceAll("#e24c4c", "#c81e1e").replaceAll("#cc8925", "#8a5a00");
    return b === body ? rule : `${selector}{${b}}`;
  });
}

/**
 * Theme components the console never shows. Their rules are dropped from the stylesheet (about half of the theme):
 * less to download, and fewer rules for every style recalculation on a phone (Lighthouse's mobile profile measured
 * half a second of style and layout on the devices page). A rule goes only when every selector of its list starts with
 * one of these components' classes; a component the console starts to use must leave this list.
 */
const UNUSED_COMPONENTS = new Set([
  "accordion",
  "autocomplete",
  "avatar",
  "badge",
  "blockui",
  "breadcrumb",
  "calendar",
  "carousel",
  "cascadeselect",
  "chips",
  "colorpicker",
  "confirm",
  "contextmenu",
  "datascroller",
  "datepicker",
  "dataview",
  "divider",
  "dock",
  "editor",
  "fieldset",
  "fileupload",
  "galleria",
  "image",
  "inplace",
  "inputgroup",
  "inputnumber",
  "inputotp",
  "inputswitch",
  "knob",
  "listbox",
  "megamenu",
  "mention",
  "menubar",
  "metergroup",
  "multiselect",
  "orderlist",
  "organizationchart",
  "overlaypanel",
  "panel",
  "panelmenu",
  "password",
  "picklist",
  "radiobutton",
  "rating",
  "scrolltop",
  "selectbutton",
  "sidebar",
  "slidemenu",
  "slider",
  "speeddial",
  "splitbutton",
  "splitter",
  "stepper",
  "steps",
  "tabmenu",
  "tabview",
  "tag",
  "terminal",
  "tieredmenu",
  "timeline",
  "togglebutton",
  "tree",
  "treenode",
  "treeselect",
  "treetable",
  "tristatecheckbox",
]);

export function pruneUnused(css: string): string {
  return css.replace(/([^{}]+)\{([^{}]*)\}/g, (rule, selector: string) => {
    const selectors = selector.split(",").map((x) => x.trim()).filter(Boolean);
    const unused = selectors.every((sel) => {
      const first = /\.p-([a-z]+)/.exec(sel)?.[1];
      return first !== undefined && UNUSED_COMPONENTS.has(first);
    });
    return unused ? "" : rule;
  });
}

/**
 * The operating system's UI font instead of the theme's Inter: Inter's variable font is 346 KB, the largest file of the
 * sign-in page, and text painted in the fallback was painted again when it arrived (Lighthouse's LCP waited for it on
 * a simulated slow 4G). System fonts are there at once.
 */
const SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';

function systemFonts(css: string): string {
  return css
    .replace(/@font-face\s*\{[^{}]*"Inter var"[^{}]*\}/g, "")
    .replaceAll('"Inter var", sans-serif', SYSTEM_FONTS);
}

const recolorTheme: esbuild.Plugin = {
  name: "recolor-theme",
  setup(build) {
    build.onLoad({ filter: /lara-light-teal[\\/]theme\.css$/ }, async (args) => {
      let css = systemFonts(pruneUnused(fixContrast(fixHighlights(await Deno.readTextFile(args.path)))));
      for (const [from, to] of RECOLOR) css = css.replaceAll(from, to);
      return { contents: css, loader: "css" };
    });
  },
};

export interface BuildReport {
  /** Files the sign-in page loads before any lazy import, with their gzipped sizes. */
  initial: { file: string; bytes: number; gzip: number }[];
  initialJsGzip: number;
}

export async function buildWeb(log: (line: string) => void = console.log): Promise<BuildReport> {
  const started = performance.now();
  // Staged inside web/dist (ignored by git) so a crash leaves nothing in the source tree.
  const staging = `${DIST_DIR}/.staging-${crypto.randomUUID().slice(0, 8)}`;
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { main: "web/src/main.tsx", styles: "web/src/styles.css" },
      outdir: staging,
      bundle: true,
      splitting: true,
      format: "esm",
      minifyWhitespace: true,
      minifySyntax: true,
      // PROFILE_NAMES=1 keeps the names of functions, for reading a CPU profile of the console.
      minifyIdentifiers: Deno.env.get("PROFILE_NAMES") !== "1",
      target: ["es2022", "chrome110", "firefox110", "safari16"],
      jsx: "automatic",
      entryNames: "[name]-[hash]",
      chunkNames: "[name]-[hash]",
      assetNames: "[name]-[hash]",
      loader: { ".woff": "file", ".woff2": "file", ".ttf": "file", ".eot": "file", ".svg": "file", ".png": "file" },
      define: { "process.env.NODE_ENV": '"production"' },
      legalComments: "none",
      metafile: true,
      logLevel: "warning",
      plugins: [recolorTheme],
    });
    const outputs = result.metafile.outputs;
    const rel = (p: string) => p.slice(p.lastIndexOf("/") + 1);
    const entry = (name: string, ext: string) => {
      const found = Object.entries(outputs).find(([file, o]) => o.entryPoint === name && file.endsWith(ext));
      if (!found) throw new Error(`esbuild produced no output for ${name}`);
      return found;
    };
    const [mainFile, mainMeta] = entry("web/src/main.tsx", ".js");
    const [cssFile] = entry("web/src/styles.css", ".css");
    // The boot script: a classic script (it must run before the body is parsed), on its own.
    const boot = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { boot: "web/src/boot.ts" },
      outdir: staging,
      bundle: true,
      format: "iife",
      minify: true,
      target: ["es2020"],
      entryNames: "[name]-[hash]",
      metafile: true,
      logLevel: "warning",
    });
    const bootFile = Object.keys(boot.metafile.outputs).find((f) => f.endsWith(".js"))!;
    // Chunks main imports statically load with it: preload them.
    const initial = new Set<string>([mainFile]);
    const walk = (file: string) => {
      for (const imp of outputs[file]?.imports ?? []) {
        if (imp.kind === "import-statement" && !initial.has(imp.path)) {
          initial.add(imp.path);
          walk(imp.path);
        }
      }
    };
    walk(mainFile);
    void mainMeta;
    // The signed-in app (a lazy chunk) and every chunk it imports statically: boot.ts preloads them all at once when
    // a session exists, instead of finding each level of imports one round trip after the other.
    // The first screen's data prefetch (app/prefetch.ts: the API client) is a lazy chunk of main's too, preloaded first.
    // Signed out, the sign-in form's chunks (a lazy import, so a signed-in start does not evaluate them) are preloaded
    // instead.
    const lazyGraph = (sources: string[]) => {
      const found = new Set<string>();
      const walkLazy = (file: string) => {
        for (const imp of outputs[file]?.imports ?? []) {
          if (imp.kind === "import-statement" && !initial.has(imp.path) && !found.has(imp.path)) {
            found.add(imp.path);
            walkLazy(imp.path);
          }
        }
      };
      for (const source of sources) {
        const [file] = entry(source, ".js");
        found.add(file);
        walkLazy(file);
      }
      return found;
    };
    const appModules = lazyGraph(["web/src/app/prefetch.ts", "web/src/app/App.tsx"]);
    const loginModules = lazyGraph(["web/src/features/auth/LoginScreen.tsx"]);

    // V8's explicit compile hint on the chunks a start evaluates (main, the signed-in app's, the sign-in form's): their
    // functions are compiled with the script, off the main thread as it streams in, instead of one by one on the main
    // thread when first called. React's client, one CommonJS function of 170 KB, was compiled lazily inside main's
    // evaluation: the start's longest task under Lighthouse (docs/DECISIONS.md, "The devices page under load: V8's
    // compile hints"). Lazy screens stay lazily compiled. `COMPILE_HINTS=0` builds without them, to measure.
    if (Deno.env.get("COMPILE_HINTS") !== "0") {
      for (const file of new Set([...initial, ...appModules, ...loginModules])) {
        const path = `${ROOT}${file}`;
        await Deno.writeTextFile(path, `//# allFunctionsCalledOnLoad\n${await Deno.readTextFile(path)}`);
      }
    }

    await Deno.mkdir(`${DIST_DIR}/${ASSETS}`, { recursive: true });
    const written = new Set<string>();
    const compressing: Promise<string[]>[] = [];
    for await (const e of Deno.readDir(staging)) {
      await Deno.rename(`${staging}/${e.name}`, `${DIST_DIR}/${ASSETS}/${e.name}`);
      written.add(e.name);
      if (COMPRESSIBLE.test(e.name)) compressing.push(precompress(`${DIST_DIR}/${ASSETS}/${e.name}`));
    }
    for (const files of await Promise.all(compressing)) for (const f of files) written.add(rel(f));

    // The page's scripts start from web/src/boot.ts (after the frame's first paint when signed in): the start-up
    // modules (main first) and the signed-in app's are listed for it.
    const head = [
      `<link rel="stylesheet" href="/${ASSETS}/${rel(cssFile)}" />`,
      `<meta name="start-modules" content="${
        [mainFile, ...[...initial].filter((f) => f !== mainFile)].map((f) => `/${ASSETS}/${rel(f)}`).join(" ")
      }" />`,
      `<meta name="app-modules" content="${[...appModules].map((f) => `/${ASSETS}/${rel(f)}`).join(" ")}" />`,
      `<meta name="login-modules" content="${[...loginModules].map((f) => `/${ASSETS}/${rel(f)}`).join(" ")}" />`,
      `<script src="/${ASSETS}/${rel(bootFile)}"></script>`,
    ].join("\n    ");
    const template = await Deno.readTextFile(`${WEB_DIR}/index.html`);
    const tmpIndex = `${DIST_DIR}/.index-${crypto.randomUUID().slice(0, 8)}.html`;
    const frame = renderToStaticMarkup(createElement(ShellFrame, { boot: true }));
    await Deno.writeTextFile(
      tmpIndex,
      template.replace("<!-- build:head -->", head).replace("<!-- build:frame -->", frame),
    );
    // Its compressed copies first: a server that sees the new index.html finds them current.
    for (const f of await precompress(tmpIndex)) await Deno.rename(f, f.replace(/\.index-[^/]*\.html/, "index.html"));
    await Deno.rename(tmpIndex, `${DIST_DIR}/index.html`);

    await pruneOldAssets(written);

    const report: BuildReport = { initial: [], initialJsGzip: 0 };
    // The sign-in page: main's start-up files and the form's (preloaded together by boot.ts).
    const signInFiles = new Set([...initial, ...loginModules]);
    for (const f of signInFiles) {
      const bytes = await Deno.readFile(`${DIST_DIR}/${ASSETS}/${rel(f)}`);
      const gzip = gzipSync(bytes, { level: 9 }).byteLength;
      report.initial.push({ file: rel(f), bytes: bytes.byteLength, gzip });
      report.initialJsGzip += gzip;
    }
    log(
      `Built web/dist in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `sign-in page JS ${(report.initialJsGzip / 1024).toFixed(1)} KiB gzipped in ${signInFiles.size} file(s).`,
    );
    return report;
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    await esbuild.stop();
  }
}

async function pruneOldAssets(keep: Set<string>) {
  const dir = `${DIST_DIR}/${ASSETS}`;
  const now = Date.now();
  for await (const e of Deno.readDir(dir)) {
    if (keep.has(e.name)) continue;
    const info = await Deno.stat(`${dir}/${e.name}`).catch(() => null);
    if (info?.mtime && now - info.mtime.getTime() > KEEP_OLD_ASSETS_MS) {
      await Deno.remove(`${dir}/${e.name}`).catch(() => {});
    }
  }
}

if (import.meta.main) {
  const report = await buildWeb();
  if (Deno.args.includes("--report")) {
    for (const f of report.initial) console.log(`${f.file}\t${f.bytes} B\t${f.gzip} B gzipped`);
  }
}
