/**
 * Operator safety when bytes and connections matter: upload progress that tells the truth, a Processing state, a
 * Cancel upload that leaves nothing on the server, and lists that say "offline" or "server cannot be reached" with a
 * working Retry instead of stale rows.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { listFiles, startServer } from "../../testing/server.ts";
import { assertEventually, bigXzFile, checkInDevices, e2eTest, throttleUpload } from "./helpers.ts";

/**
 * A plain HTTP proxy in front of the server that holds back the answers to the requests `hold` picks until release():
 * the browser has sent the whole body, the "server" is still working.
 */
function holdingProxy(target: string, hold: (req: Request) => boolean) {
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const headers = new Headers(req.headers);
    headers.delete("host");
    const body = req.body ? await req.arrayBuffer() : undefined;
    const upstream = await fetch(`${target}${url.pathname}${url.search}`, { method: req.method, headers, body });
    const answer = new Uint8Array(await upstream.arrayBuffer());
    if (hold(req)) await released;
    const out = new Headers(upstream.headers);
    out.delete("content-encoding");
    out.delete("content-length");
    return new Response(req.method === "HEAD" || upstream.status === 204 || upstream.status === 304 ? null : answer, {
      status: upstream.status,
      headers: out,
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    release,
    async [Symbol.asyncDispose]() {
      release();
      await server.shutdown();
    },
  };
}

/** Reads the progress bar and the text beside it in one go (same frame). */
function readProgress(page: Page) {
  return page.evaluate(() => {
    const dialog = document.querySelector(".p-dialog")!;
    const bar = dialog.querySelector<HTMLElement>("[role=progressbar]");
    const fill = bar?.querySelector<HTMLElement>(".p-progressbar-value");
    const text = [...dialog.querySelectorAll("span")].map((s) => s.textContent ?? "").find((t) =>
      /^Uploading… \d+%$/.test(t)
    );
    if (!bar || !fill || !text) return null;
    return {
      text: Number(/(\d+)%/.exec(text)![1]),
      ariaValue: Number(bar.getAttribute("aria-valuenow")),
      drawn: (fill.getBoundingClientRect().width / bar.getBoundingClientRect().width) * 100,
      transition: getComputedStyle(fill).transitionDuration,
    };
  });
}

async function focusedLabel(page: Page): Promise<string> {
  return await page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el && el !== document.body ? (el.getAttribute("aria-label") ?? el.textContent ?? "").trim() : "<body>";
  });
}

e2eTest(
  "upload: bar and text show the same bytes, Processing while the server works, Cancel stores nothing",
  async (c) => {
    const { page, visit, signIn, screenshot, srv, api } = c;
    const dir = await Deno.makeTempDir({ prefix: "e2e-safety-fw-" });
    try {
      await api.uploadFirmware(await fileSource(await makeXzFile(dir, "existing-1.0.xz")));
      const before = (await api.listFirmwares()).map((f) => f._id);
      const big = await bigXzFile(dir, "mistake-9.9.xz", 6 * 1024 * 1024);

      await visit("/device_firmwares");
      await signIn();
      await page.getByLabel("Firmware existing-1.0.xz", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Upload firmware" }).click();
      const dlg = page.getByRole("dialog", { name: "Upload firmware" });
      await dlg.getByLabel("Select .xz or .swu file").setInputFiles(big);
      await throttleUpload(page, 1024 * 1024);
      await dlg.getByRole("button", { name: "Upload", exact: true }).click();

      // Bar and text come from the same byte count; the bar does not animate behind the text.
      await dlg.getByText(/^Uploading… [1-9]\d?%$/).waitFor();
      const seen = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const p = await readProgress(page);
        if (!p) break;
        assert.equal(p.transition, "0s", "no width transition on the upload bar");
        assert.equal(p.ariaValue, p.text, "the bar's value is the text's percentage");
        assert.ok(
          Math.abs(p.drawn - p.text) <= 1,
          `bar drawn at ${p.drawn.toFixed(1)}% while the text says ${p.text}%`,
        );
        seen.add(p.text);
        await page.waitForTimeout(300);
      }
      assert.ok(seen.size >= 2, `progress moved while sampled: ${[...seen]}`);
      await dlg.getByText(/ of 6\.0 MiB$/).waitFor();
      // The Upload button is disabled now: the focus is on Cancel upload, not on the page body.
      assert.equal(await focusedLabel(page), "Cancel upload");
      await page.keyboard.press("Escape");
      assert.equal(await dlg.isVisible(), true, "closing stays blocked while uploading");
      assert.equal(await dlg.getByRole("button", { name: "Cancel", exact: true }).isDisabled(), true);
      await screenshot("safety-net-01-uploading");

      await dlg.getByRole("button", { name: "Cancel upload" }).click();
      await dlg.getByText("Upload cancelled. Nothing was stored.").waitFor();
      assert.equal(await dlg.getByText("Upload failed").count(), 0);
      await dlg.getByText("Selected file: mistake-9.9.xz").waitFor();
      assert.equal(await focusedLabel(page), "Upload");
      await throttleUpload(page, null);
      await screenshot("safety-net-02-cancelled");
      // The server kept nothing: same firmware list, no temp file left behind.
      await assertEventually(async () => assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []), 10_000);
      assert.deepEqual((await api.listFirmwares()).map((f) => f._id), before);
      assert.equal(await page.getByLabel("Firmware mistake-9.9.xz", { exact: true }).count(), 0);

      // Processing: the browser has sent every byte, the server's answer is held back by a proxy; no Cancel upload
      // then, and closing stays blocked.
      await page.keyboard.press("Escape");
      await using proxy = holdingProxy(
        srv.url,
        (req) => req.method === "POST" && req.url.endsWith("/device_firmwares"),
      );
      await page.goto(`${proxy.url}/device_firmwares`);
      await signIn();
      await page.getByRole("button", { name: "Upload firmware" }).click();
      await dlg.getByLabel("Select .xz or .swu file").setInputFiles(await makeXzFile(dir, "small-1.1.xz"));
      await dlg.getByRole("button", { name: "Upload", exact: true }).click();
      await dlg.getByText(/^Processing…/).waitFor();
      assert.equal(await dlg.getByText(/^Uploading…/).count(), 0, "no 'Uploading… 100%' while the server works");
      assert.equal(await dlg.getByRole("button", { name: "Cancel upload" }).count(), 0);
      assert.equal(await dlg.getByRole("button", { name: "Cancel", exact: true }).isDisabled(), true);
      await page.keyboard.press("Escape");
      assert.equal(await dlg.isVisible(), true);
      assert.notEqual(await focusedLabel(page), "<body>");
      await screenshot("safety-net-03-processing");
      proxy.release();
      await dlg.getByText("Upload successful").waitFor();
      assert.deepEqual(
        (await api.listFirmwares()).map((f) => f.name).sort(),
        ["existing-1.0.xz", "small-1.1.xz"],
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

const ids = Array.from({ length: 30 }, (_, i) => `dev-${String(i).padStart(3, "0")}`);

/** The list shows only the error: no table rows, no empty text, no paginator and no "0-0 of 0". */
async function assertOnlyTheError(page: Page) {
  assert.equal(await page.locator("table[aria-label=Devices] tbody tr").count(), 0, "no stale rows");
  assert.equal(await page.getByText("No devices found.").count(), 0);
  assert.equal(await page.locator(".p-paginator").count(), 0, "no paginator");
  assert.equal(await page.getByText(/\d+-\d+ of \d+/).count(), 0);
}

e2eTest(
  "server down: the list says so with Retry, no stale rows or page claims; Retry works once it is back",
  async (c) => {
    const { page, visit, signIn, screenshot, srv } = c;
    await checkInDevices(srv, ids);
    await visit("/devices");
    await signIn();
    const table = page.locator("table[aria-label=Devices]");
    await table.getByText("dev-000", { exact: true }).waitFor();

    const port = new URL(srv.url).port;
    assert.equal(await srv.stop("SIGTERM"), 0);
    await page.getByRole("button", { name: "Next Page" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Error loading data." });
    await alert.getByText(/The server cannot be reached\./).waitFor();
    await assertOnlyTheError(page);
    await screenshot("safety-net-04-server-down");

    // Retry while it is still down: the same state again. The list's query retries once after a failure; both of its
    // requests must have failed before the server comes back, or that retry (not Retry) would bring the page.
    const listFailed = { predicate: (r: { url(): string }) => new URL(r.url()).pathname === "/api/v1/devices" };
    const bothFailed = page.waitForEvent("requestfailed", listFailed).then(() =>
      page.waitForEvent("requestfailed", listFailed)
    );
    await alert.getByRole("button", { name: "Retry" }).click();
    await bothFailed;
    await page.waitForFunction(() => !document.querySelector("[aria-label=Loading]"));
    await alert.getByText(/The server cannot be reached\./).waitFor();
    await assertOnlyTheError(page);

    // A new server process on the same port and data: Retry brings the page the URL asks for.
    await using back = await startServer({ dataDir: srv.dataDir, keepData: true, env: { PORT: port } });
    assert.equal(back.url, srv.url);
    await alert.getByRole("button", { name: "Retry" }).click();
    await table.getByText("dev-025", { exact: true }).waitFor();
    assert.equal(await alert.count(), 0);
    await page.getByText("26-30 of 30").waitFor();
    assert.equal(await focusedLabel(page), "Devices", "focus goes to the heading, not the page body");
  },
);

e2eTest("offline: lists and details say so; lists reload when back online, the detail on Retry", async (c) => {
  const { page, visit, signIn, screenshot, srv, browser } = c;
  await checkInDevices(srv, ids);
  await visit("/devices");
  await signIn();
  const table = page.locator("table[aria-label=Devices]");
  await table.getByText("dev-000", { exact: true }).waitFor();

  await browser.setOffline(true);
  await page.getByRole("button", { name: "Next Page" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Error loading data." });
  await alert.getByText(/You are offline\./).waitFor();
  await alert.getByRole("button", { name: "Retry" }).waitFor();
  await assertOnlyTheError(page);
  await screenshot("safety-net-05-offline");

  await browser.setOffline(false);
  await table.getByText("dev-025", { exact: true }).waitFor();
  assert.equal(await alert.count(), 0);

  // A device opened while offline: the error page says so and its Retry loads the device once back online.
  await table.getByRole("link", { name: "dev-025" }).click();
  await page.getByRole("heading", { name: "Device dev-025" }).waitFor();
  await page.goBack();
  await browser.setOffline(true);
  await table.getByRole("link", { name: "dev-026" }).click();
  const errorPage = page.locator(".error-page");
  await errorPage.getByText("Sorry, an unexpected error has occurred.").waitFor();
  await errorPage.getByText("You are offline.").waitFor();
  await screenshot("safety-net-06-offline-detail");
  await browser.setOffline(false);
  await errorPage.getByRole("button", { name: "Retry" }).click();
  await page.getByRole("heading", { name: "Device dev-026" }).waitFor();
});
