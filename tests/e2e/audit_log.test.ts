/**
 * The audit log page (filters, paging, the CSV, links from a history) and the history cards of the device, product
 * type and firmware screens; axe finds nothing on them; a viewer sees no history.
 */
import assert from "node:assert/strict";
import { routes } from "../../shared/routes/mod.ts";
import { assertAccessible } from "./a11y.ts";
import { checkInDevices, e2eTest, pick, settled } from "./helpers.ts";

e2eTest(
  "audit log: filters, paging, CSV; each device, product type and firmware screen shows its history",
  async (c) => {
    const { page, visit, signIn, screenshot, api, srv } = c;
    await checkInDevices(srv, Array.from({ length: 30 }, (_, i) => `AUD-${String(i).padStart(2, "0")}`));
    const type = await api.createProductType("Walker");
    await api.patchDevice({ deviceId: "AUD-07", productTypeId: type._id });
    await api.patchDevice({ deviceId: "AUD-07", productTypeId: null });

    await visit("/audit");
    await signIn();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    const table = page.getByRole("table", { name: "Audit log" });
    await table.locator("tbody tr[data-seq]").first().waitFor();
    // Newest first: this sign-in on top, then the last change.
    const firstRow = table.locator("tbody tr").first();
    assert.match(await firstRow.innerText(), /admin@example\.com\s+Signed in\s+Operator admin@example\.com/);
    assert.match(
      await table.locator("tbody tr").nth(1).innerText(),
      /admin@example\.com\s+Device changed\s+Device AUD-07\s+Product type: Walker → none/,
    );
    const total = (await api.listAudit()).total;
    await page.getByText(`${total} entries`, { exact: true }).waitFor();
    await settled(page);
    await assertAccessible(page, "audit log");
    await screenshot("audit-01-log");

    // Page 2 of 25 rows.
    await page.getByRole("button", { name: "Page 2" }).click();
    await page.waitForURL(/\/audit\?page=1$/);
    await page.getByText(`26-${Math.min(50, total)} of ${total}`).waitFor();

    // Filter: one action, then one device.
    await pick(page, page.locator(".audit-filters .p-dropdown").first(), "Device changed");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/action=device\.update/);
    await page.getByText("2 entries match", { exact: true }).waitFor();
    assert.equal(await table.locator("tbody tr[data-seq]").count(), 2);
    await page.getByRole("button", { name: "Clear" }).click();
    await page.getByLabel("Target id").fill("AUD-03");
    await page.getByLabel("Target id").press("Enter");
    await page.getByText("1 entry match", { exact: true }).waitFor();
    assert.match(await firstRow.innerText(), /Device AUD-03\s+Device registered\s+Device AUD-03/);
    await screenshot("audit-02-filtered");

    // The CSV of what the filters select.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV" }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^audit-.*\.csv$/);
    const csv = await Deno.readTextFile((await download.path())!);
    const lines = csv.trimEnd().split("\r\n");
    assert.equal(lines.length, 2);
    assert.match(lines[1], /,device\.create,device,AUD-03,AUD-03,/);

    // The device's history, and its link into the log.
    await visit("/devices/AUD-07");
    const history = page.getByRole("table", { name: "History" });
    await history.locator("tbody tr[data-seq]").nth(2).waitFor();
    assert.equal(await history.locator("tbody tr[data-seq]").count(), 3);
    assert.match(await history.locator("tbody tr").first().innerText(), /Device changed/);
    await settled(page);
    await assertAccessible(page, "device history");
    await screenshot("audit-03-device-history");
    await page.getByRole("link", { name: "Open in the audit log" }).click();
    await page.waitForURL(/\/audit\?targetType=device&targetId=AUD-07$/);
    await page.getByText("3 entries match", { exact: true }).waitFor();

    // A change made on the screen shows in its history at once.
    await visit(`/product_types/${type._id}`);
    const ptHistory = page.getByRole("table", { name: "History" });
    await ptHistory.locator("tbody tr[data-seq]").first().waitFor();
    assert.match(await ptHistory.innerText(), /Product type created/);

    await visit("/device_firmwares");
    await page.getByRole("table", { name: "Firmware history" }).getByText("No entries found.").waitFor();

    // A viewer: no history card, and the log says why.
    await api.call(routes.createOperator, {
      body: { email: "viewer@example.com", role: "viewer", password: "view-pass-1" },
    });
    await page.evaluate(() => localStorage.clear());
    await visit("/devices/AUD-07");
    await signIn(page, "viewer@example.com", "view-pass-1");
    await page.getByRole("heading", { name: "Device AUD-07" }).waitFor();
    await page.getByText("Device information").waitFor();
    await settled(page);
    assert.equal(await page.getByRole("table", { name: "History" }).count(), 0);
    await visit("/audit");
    await page.getByText(/operator role; you are signed in as viewer/).waitFor();
  },
);
