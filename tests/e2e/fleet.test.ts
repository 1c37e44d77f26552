/**
 * Fleet views in Chromium (docs/REQUIREMENTS.md §16): sort (aria-sort) and filters kept in the URL, the column chooser, selection
 * and a confirmed bulk change, the CSV export, the overview's charts leading to filtered lists, and a firmware
 * refusal that links to the devices it names; axe finds nothing at 1440 and 390 px.
 */
import assert from "node:assert/strict";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { assertAccessible } from "./a11y.ts";
import { assertEventually, checkInDevices, e2eTest, settled } from "./helpers.ts";

const ids = Array.from({ length: 40 }, (_, i) => `fl-${String(i).padStart(3, "0")}`);

e2eTest("fleet views: sort, filters in the URL, columns, bulk change with confirm, CSV, 409 link", async (c) => {
  const { page, visit, signIn, screenshot, srv, api } = c;
  await checkInDevices(srv, ids);
  const walker = await api.createProductType("Walker");
  const dir = await Deno.makeTempDir();
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "pinned-2.xz")));
  await Deno.remove(dir, { recursive: true });
  await api.bulkDevices({ deviceIds: ids.slice(0, 3), filter: null, set: { firmware: fw._id } });

  await visit("/devices");
  await signIn();
  const table = page.locator(".p-datatable");
  const rows = table.locator("tbody tr");
  await table.getByText("fl-000", { exact: true }).waitFor();
  await page.setViewportSize({ width: 1440, height: 900 });
  await assertAccessible(page, "devices list with filters (1440)");

  // Sort: the header is a button; aria-sort says the order; the URL keeps it.
  const idHeader = table.locator("th", { hasText: "Device ID" });
  assert.equal(await idHeader.getAttribute("aria-sort"), "ascending");
  await idHeader.getByRole("button").click();
  await page.waitForURL(/order=desc/);
  await table.locator("tbody tr").first().getByText("fl-039", { exact: true }).waitFor();
  assert.equal(await idHeader.getAttribute("aria-sort"), "descending");
  await table.locator("th", { hasText: "Last login" }).getByRole("button").click();
  await page.waitForURL(/sort=lastLoggedIn/);
  assert.equal(await table.locator("th", { hasText: "Last login" }).getAttribute("aria-sort"), "ascending");
  assert.equal(await idHeader.getAttribute("aria-sort"), "none");

  // Filter by firmware in effect: kept in the URL, survives a reload; the firmware's name shows in the column.
  await page.getByLabel("Firmware in effect").selectOption({ label: "pinned-2.xz" });
  await page.waitForURL(new RegExp(`firmware=${fw._id}`));
  await page.getByText("3 devices match").waitFor();
  assert.equal(await rows.count(), 3);
  await rows.first().getByText("pinned-2.xz").waitFor();
  await page.reload();
  await page.getByText("3 devices match").waitFor();
  assert.equal(await page.getByLabel("Firmware in effect").inputValue(), fw._id);
  await screenshot("fleet-01-filtered");
  await page.getByRole("button", { name: "Clear filters" }).click();
  await page.getByText("40 devices").waitFor();

  // Column chooser: the specification's seven by default; App version added, kept after a reload.
  assert.equal(await table.locator("th", { hasText: "App version" }).count(), 0);
  await page.getByRole("button", { name: "Columns" }).click();
  await assertAccessible(page, "column chooser");
  await page.getByRole("checkbox", { name: "App version" }).check();
  await table.locator("th", { hasText: "App version" }).waitFor();
  await page.reload();
  await table.locator("th", { hasText: "App version" }).waitFor();

  // The update-state filter (docs/REQUIREMENTS.md §13's latest report): none of these devices ever reported.
  await page.locator("#filter-update").selectOption({ label: "No report" });
  await page.waitForURL(/update=none/);
  await page.getByText("40 devices match").waitFor();
  await page.locator("#filter-update").selectOption({ label: "Any state" });
  await page.waitForURL((url) => !url.search.includes("update="));

  // Select rows, then "all N matching" a filter, and assign a product type in one confirmed change.
  await page.getByLabel("Last check-in").selectOption({ label: "Within 24 hours" });
  await page.waitForURL(/seen=24h/);
  await page.getByText("40 devices match").waitFor();
  await page.getByRole("checkbox", { name: "Select fl-000" }).check();
  await page.getByRole("checkbox", { name: "Select fl-001" }).check();
  await page.getByText("2 selected").waitFor();
  await page.getByRole("checkbox", { name: "Select all devices on this page" }).check();
  await page.getByRole("button", { name: "Select all 40 matching" }).click();
  await page.getByText("All 40 matching devices selected.").waitFor();
  await assertAccessible(page, "selection bar");
  await page.getByRole("button", { name: "Change selected…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("Change 40 devices").waitFor();
  await dialog.getByLabel("Product type").selectOption({ label: "Walker" });
  // Dialog animations finish before axe measures colours (as the accessibility suite waits).
  await page.waitForTimeout(350);
  await assertAccessible(page, "bulk change dialog");
  // Meanwhile one more device checks in: "all matching" now holds 41, and the confirmation counts what the server
  // will change, not the list read before.
  await checkInDevices(srv, ["fl-040"]);
  await dialog.getByRole("button", { name: "Review change" }).click();
  await page.getByRole("dialog", { name: "Change 41 devices?" }).waitFor();
  await dialog.getByText("This changes what 41 devices run from their next check-in").waitFor();
  await dialog.getByText("Product type: Walker").waitFor();
  // A confirmation of what devices run opens with focus on the button that changes nothing; no OK / Cancel.
  await settled(page);
  await assertEventually(async () =>
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Back to the change")
  );
  assert.equal(await dialog.getByRole("button", { name: /^(OK|Cancel)$/ }).count(), 0);
  await page.waitForTimeout(350);
  await assertAccessible(page, "bulk change confirmation");
  await screenshot("fleet-02-bulk-confirm");
  await dialog.getByRole("button", { name: "Change 41 devices" }).click();
  await page.getByText("41 devices changed.").waitFor();
  assert.equal((await api.listDevices({ productTypeId: walker._id })).total, 41);
  assert.equal(await page.getByText("matching devices selected").count(), 0, "the selection is cleared");

  // CSV of the filtered list, with the same filters and sort.
  await page.getByLabel("Firmware in effect").selectOption({ label: "Custom firmware set" });
  await page.getByText("3 devices match").waitFor();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export CSV" }).click(),
  ]);
  assert.equal(download.suggestedFilename(), "devices.csv");
  const csv = await Deno.readTextFile((await download.path())!);
  const lines = csv.trimEnd().split("\r\n");
  assert.equal(lines.length, 4);
  assert.match(lines[1], /^fl-00\d,Walker,pinned-2\.xz,/);

  // Saved view: named, opened again from the list.
  await page.getByRole("button", { name: "Save view" }).click();
  await page.getByLabel("View name").fill("Pinned");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  // Saved on the server: a toast says so (its entry animation ends before axe measures colours below).
  await page.getByText("View saved").waitFor();
  await page.waitForTimeout(350);
  await page.getByRole("button", { name: "Clear filters" }).click();
  await page.getByText("41 devices", { exact: true }).waitFor();
  await page.getByLabel("Saved view").selectOption({ label: "Pinned" });
  await page.getByText("3 devices match").waitFor();

  // Narrow screen: still nothing for axe.
  await page.setViewportSize({ width: 390, height: 844 });
  await assertAccessible(page, "devices list (390)");
  await page.setViewportSize({ width: 1440, height: 900 });

  // A firmware that cannot be deleted names its devices before the delete: the confirmation links to them.
  await visit("/device_firmwares");
  await page.getByText("pinned-2.xz", { exact: true }).waitFor();
  await page.getByRole("button", { name: /Delete/ }).first().click();
  const confirm = page.getByRole("dialog");
  await confirm.getByText("It cannot be deleted now: it is the custom firmware of 3 devices.").waitFor();
  assert.equal(await confirm.getByRole("button", { name: "Delete firmware" }).isDisabled(), true);
  const link = confirm.getByRole("link", { name: "Show the 3 devices" });
  await link.waitFor();
  await screenshot("fleet-03-refusal-link");
  await link.click();
  await page.waitForURL(new RegExp(`/devices\\?firmware=${fw._id}$`));
  await page.getByText("3 devices match").waitFor();
});

e2eTest("overview: fleet health counts and charts, each slice leading to the filtered list", async (c) => {
  const { page, visit, signIn, screenshot, srv, api } = c;
  await checkInDevices(srv, ids.slice(0, 12));
  const walker = await api.createProductType("Walker");
  await api.bulkDevices({ deviceIds: null, filter: { q: "fl-00" }, set: { productTypeId: walker._id } });

  await visit("/");
  await signIn();
  const card = (label: string) => page.locator(".overview-card", { hasText: label });
  await card("Checked in within 24 hours").getByText("12", { exact: true }).waitFor();
  await card("Never checked in").getByText("0", { exact: true }).waitFor();
  // The charts load after the page (chart.js is its own chunk): three canvases.
  await page.locator(".overview-chart canvas").nth(2).waitFor();
  await page.setViewportSize({ width: 1440, height: 900 });
  await assertAccessible(page, "overview with charts (1440)");
  await screenshot("fleet-04-overview");
  await page.setViewportSize({ width: 390, height: 844 });
  await assertAccessible(page, "overview with charts (390)");
  await page.setViewportSize({ width: 1440, height: 900 });

  const types = page.getByRole("region", { name: "Product types" });
  await types.getByRole("link", { name: "Walker: 10" }).click();
  await page.waitForURL(new RegExp(`/devices\\?productTypeId=${walker._id}$`));
  await page.getByText("10 devices match").waitFor();
  await page.goBack();
  await page.getByRole("region", { name: "Product types" }).getByRole("link", { name: "No product type: 2" }).click();
  await page.waitForURL(/productTypeId=none/);
  await page.getByText("2 devices match").waitFor();
  await page.goBack();
  await card("Checked in within 24 hours").click();
  await page.waitForURL(/seen=24h/);
  await page.getByText("12 devices match").waitFor();
  await page.goBack();

  // A click on a chart's slice opens the list filtered to it (the app-version bar chart: one bar).
  const bars = page.locator(".overview-chart canvas").nth(1);
  await bars.waitFor();
  await page.waitForTimeout(300);
  const box = (await bars.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.6);
  await page.waitForURL(/\/devices\?app=/);
  await page.getByText("12 devices match").waitFor();
});
