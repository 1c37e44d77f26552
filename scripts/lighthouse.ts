/**
 * `deno task lighthouse [--runs N] [--desktop] [--reports DIR [--traces]] [--page sign-in|devices]`: Lighthouse (npm) in
 * Debian's Chromium against a real server with the demo data set: the sign-in page and the signed-in devices page
 * (or the one `--page` names), mobile profile (Lighthouse's default: a mid-range phone, simulated slow 4G and 4× CPU
 * slowdown). Prints performance, accessibility, CLS, FCP, LCP and TBT, the median of N runs (default 3), for
 * docs/PERFORMANCE.md. Not part of `deno task test`.
 *
 * The devices page needs a session: Chromium is started with a DevTools port, the token is put in localStorage
 * through playwright-core, and Lighthouse drives that same browser without clearing storage.
 */
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_LAUNCH } from "../testing/chromium.ts";
import { startServer } from "../testing/server.ts";

const runs = Number(Deno.args[Deno.args.indexOf("--runs") + 1] || 3) || 3;
const desktop = Deno.args.includes("--desktop");
/** `--reports DIR` keeps each run's Lighthouse JSON report there. */
const reportsDir = Deno.args.includes("--reports") ? Deno.args[Deno.args.indexOf("--reports") + 1] : null;
/** `--traces` (with `--reports`) keeps each run's Chromium trace beside its report, for reading its long tasks. */
const traces = Deno.args.includes("--traces");
/** `--page NAME` measures that page alone (both by default). */
const onlyPage = Deno.args.includes("--page") ? Deno.args[Deno.args.indexOf("--page") + 1] : null;

interface Figures {
  performance: number;
  accessibility: number;
  cls: number;
  fcp: number;
  lcp: number;
  tbt: number;
  failed: string[];
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return port;
}

async function lighthouse(url: string, port: number, out: string): Promise<Figures> {
  const args = [
    "run",
    "-A",
    "npm:lighthouse@12.2.3",
    url,
    `--port=${port}`,
    "--disable-storage-reset",
    "--only-categories=performance,accessibility",
    "--output=json",
    `--output-path=${out}`,
    "--quiet",
    ...(desktop ? ["--preset=desktop"] : []),
    ...(traces ? ["--save-assets"] : []),
  ];
  const run = await new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "piped" }).output();
  if (!run.success) throw new Error(`lighthouse failed:\n${new TextDecoder().decode(run.stderr)}`);
  const r = JSON.parse(await Deno.readTextFile(out));
  const audit = (id: string) => r.audits[id]?.numericValue ?? NaN;
  const failed = Object.values(r.categories.accessibility.auditRefs as { id: string }[])
    .map((a) => r.audits[a.id])
    .filter((a) => a && a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary")
    .map((a) => a.id);
  return {
    performance: Math.round(r.categories.performance.score * 100),
    accessibility: Math.round(r.categories.accessibility.score * 100),
    cls: audit("cumulative-layout-shift"),
    fcp: audit("first-contentful-paint"),
    lcp: audit("largest-contentful-paint"),
    tbt: audit("total-blocking-time"),
    failed,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const tmp = await Deno.makeTempDir({ prefix: "console-lighthouse-" });
await using srv = await startServer({ env: { DEMO: "1" } });
const api = await srv.login();
const port = freePort();
const chrome = new Deno.Command(CHROMIUM, {
  args: [
    ...CHROMIUM_LAUNCH.args,
    "--headless=new",
    `--remote-debugging-port=${port}`,
    `--user-data-dir=${tmp}/profile`,
    "about:blank",
  ],
  stdout: "null",
  stderr: "null",
}).spawn();
try {
  // Wait for the DevTools port, then sign the profile in (the token in localStorage, as the console keeps it).
  let browser;
  for (let i = 0; !browser; i++) {
    browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`).catch((err) => {
      if (i > 50) throw err;
      return null;
    });
    if (!browser) await new Promise((r) => setTimeout(r, 200));
  }
  const page = await browser.contexts()[0].newPage();
  const pages = ([["sign-in", "/", false], ["devices", "/devices", true]] as [string, string, boolean][])
    .filter(([name]) => !onlyPage || name === onlyPage);
  const results: [string, Figures][] = [];
  for (const [name, path, signedIn] of pages) {
    await page.goto(`${srv.url}/`);
    await page.evaluate((token) => {
      if (token) localStorage.setItem("accessToken", token);
      else localStorage.removeItem("accessToken");
    }, signedIn ? api.token : null);
    const all: Figures[] = [];
    for (let i = 0; i < runs; i++) {
      // A cold load each time: the HTTP cache is emptied, the session in localStorage stays.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.clearBrowserCache");
      await cdp.detach();
      const report = `${tmp}/${name}-${i}.json`;
      const f = await lighthouse(`${srv.url}${path}`, port, report);
      if (reportsDir) {
        await Deno.mkdir(reportsDir, { recursive: true });
        await Deno.copyFile(report, `${reportsDir}/${name}-${i}.json`);
        if (traces) {
          await Deno.copyFile(report.replace(/\.json$/, "-0.trace.json"), `${reportsDir}/${name}-${i}.trace.json`);
        }
      }
      console.error(
        `[lighthouse] ${name} run ${i + 1}: performance ${f.performance}, accessibility ${f.accessibility}`,
      );
      all.push(f);
    }
    results.push([name, {
      performance: median(all.map((f) => f.performance)),
      accessibility: median(all.map((f) => f.accessibility)),
      cls: median(all.map((f) => f.cls)),
      fcp: median(all.map((f) => f.fcp)),
      lcp: median(all.map((f) => f.lcp)),
      tbt: median(all.map((f) => f.tbt)),
      failed: [...new Set(all.flatMap((f) => f.failed))],
    }]);
  }
  await browser.close();

  console.log(`Lighthouse 12.2.3, ${desktop ? "desktop" : "mobile"} profile, median of ${runs} run(s):\n`);
  console.log("| page | performance | accessibility | CLS | FCP | LCP | TBT |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const [name, f] of results) {
    console.log(
      `| ${name} | ${f.performance} | ${f.accessibility} | ${f.cls.toFixed(3)} | ${(f.fcp / 1000).toFixed(1)} s | ` +
        `${(f.lcp / 1000).toFixed(1)} s | ${Math.round(f.tbt)} ms |`,
    );
  }
  for (const [name, f] of results) if (f.failed.length) console.log(`\n${name}: failing audits ${f.failed.join(", ")}`);
} finally {
  try {
    chrome.kill("SIGTERM");
  } catch { /* gone */ }
  await chrome.status;
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
}
