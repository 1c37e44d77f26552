import { chromium } from "playwright-core";
import { CHROMIUM_LAUNCH } from "../testing/chromium.ts";
import { startServer } from "../testing/server.ts";
await using srv = await startServer({ env: { DEMO: "1" } });
const api = await srv.login();
const browser = await chromium.launch(CHROMIUM_LAUNCH);
const page = await browser.newPage({ viewport: { width: 412, height: 823 } });
await page.goto(`${srv.url}/`);
await page.evaluate((t) => localStorage.setItem("accessToken", t), api.token);
const rect = () =>
  page.evaluate(() => {
    const s = document.querySelector(".topbar-title span")!;
    const r = s.getBoundingClientRect();
    return JSON.stringify({
      w: r.width,
      h: r.height,
      x: r.x,
      sw: s.scrollWidth,
      frame: !!document.querySelector(".boot-frame"),
      font: getComputedStyle(s).fontFamily.slice(0, 30),
    });
  });
await page.route("**/assets/main-*.js", (r) => r.abort());
await page.goto(`${srv.url}/devices`);
console.log("static", await rect());
await page.unroute("**/assets/main-*.js");
await page.goto(`${srv.url}/devices`);
await page.waitForSelector("table tbody tr td a");
console.log("app   ", await rect());
await browser.close();
