import assert from "node:assert/strict";
import { e2eTest } from "./helpers.ts";

e2eTest(
  "shell menu, route error page and unknown paths",
  async ({ page, visit, signIn, screenshot, srv, api: client }) => {
    await visit("/");
    await signIn();
    const nav = page.getByRole("navigation", { name: "Main" });
    // The app's menu, not the empty frame shown while the app's code loads (it is replaced, and a replaced element
    // measures 0).
    await nav.getByRole("link", { name: "Devices" }).waitFor();
    const width = await nav.evaluate((el) => el.getBoundingClientRect().width);
    assert.equal(Math.round(width), 220);
    for (
      const [label, path] of [
        ["Devices", "/devices"],
        ["Treatments", "/treatments"],
        ["Product types", "/product_types"],
        ["Device firmwares", "/device_firmwares"],
        ["Overview", "/"],
      ]
    ) {
      await nav.getByRole("link", { name: label }).click();
      await page.waitForURL((u) => u.pathname === path);
      assert.equal(await nav.getByRole("link", { name: label }).getAttribute("aria-current"), "page");
    }

    // An unknown route and a device that does not exist both show the error page inside the shell.
    await visit("/no/such/screen");
    await page.getByRole("heading", { name: "Error" }).waitFor();
    await page.getByText("Sorry, an unexpected error has occurred.").waitFor();
    await page.getByText("Not Found").waitFor();
    await screenshot("shell-01-route-error");
    await visit("/devices/no-such-device");
    await page.getByRole("heading", { name: "Error" }).waitFor();
    await page.getByText(/no-such-device/).last().waitFor();
    await screenshot("shell-02-device-error");

    // Leaving the error page clears it.
    await nav.getByRole("link", { name: "Overview" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();

    // Unknown /api/ paths stay JSON; assets are cached for a year, index.html not at all.
    for (const path of ["/api/v1/nothing-here", "/api/other"]) {
      const res = await srv.fetch(path, { token: client.token });
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).error, "not_found");
    }
    const index = await srv.fetch("/devices/abc");
    assert.equal(index.status, 200);
    assert.equal(index.headers.get("cache-control"), "no-cache");
    const html = await index.text();
    assert.doesNotMatch(html, /<script>(?!<)/, "no inline script");
    // The page's scripts start from a classic boot script (no inline script), which names main first.
    assert.match(html, /<script src="\/assets\/boot-[A-Z0-9]+\.js"><\/script>/);
    const asset = /name="start-modules" content="(\/assets\/main-[A-Z0-9]+\.js)/.exec(html)?.[1];
    assert.ok(asset, html);
    const js = await srv.fetch(asset);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.match(js.headers.get("content-type") ?? "", /javascript/);
    await js.body?.cancel();
    const missing = await srv.fetch("/assets/main-AAAAAAAA.js");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const traversal = await srv.fetch("/assets/..%2f..%2fdeno.json");
    assert.equal(traversal.status, 404);
    await traversal.body?.cancel();
  },
);

Deno.test("the sign-in page loads at most 250 KB of gzipped JavaScript", async () => {
  const { gzipSync } = await import("node:zlib");
  const { startServer } = await import("../../testing/server.ts");
  await using srv = await startServer();
  const html = await (await srv.fetch("/")).text();
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  assert.ok(files.length >= 1, html);
  let gz = 0;
  for (const f of files) {
    const res = await srv.fetch(f);
    assert.equal(res.status, 200, f);
    gz += gzipSync(new Uint8Array(await res.arrayBuffer())).byteLength;
  }
  assert.ok(gz <= 250 * 1024, `sign-in page JavaScript is ${gz} bytes gzipped`);
});

e2eTest("the devices page loads at most 250 KB of gzipped JavaScript", async ({ page, srv, api }) => {
  // As the benchmark measures it (scripts/bench/steps.ts benchWeb): a signed-in visit of /devices, every script the
  // page fetched, gzipped, in KB of 1000 bytes.
  const { gzipSync } = await import("node:zlib");
  await page.addInitScript((t) => localStorage.setItem("accessToken", t), api.token);
  const sizes: Promise<number>[] = [];
  page.on("response", (res) => {
    if (res.request().resourceType() === "script") {
      sizes.push(res.body().then((b) => gzipSync(new Uint8Array(b)).byteLength));
    }
  });
  await page.goto(`${srv.url}/devices`, { waitUntil: "networkidle" });
  await page.getByRole("heading", { name: "Devices" }).waitFor();
  const gz = (await Promise.all(sizes)).reduce((a, n) => a + n, 0);
  assert.ok(sizes.length >= 2, "the signed-in app is a lazy chunk");
  assert.ok(gz <= 250_000, `devices page JavaScript is ${gz} bytes gzipped`);
});
