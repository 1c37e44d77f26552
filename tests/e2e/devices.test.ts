import assert from "node:assert/strict";
import { makeXzFile } from "../../testing/files.ts";
import { fileSource } from "../../testing/files.ts";
import { assertEventually, checkInDevices, e2eTest, importTreatments, pick, settled, treatment } from "./helpers.ts";

const ids = Array.from({ length: 60 }, (_, i) => `dev-${String(i).padStart(3, "0")}`);

e2eTest("devices list: paging, page size, search, URL kept on reload and back", async (c) => {
  const { page, visit, signIn, screenshot, srv, api } = c;
  await checkInDevices(srv, ids);
  const type = await api.createProductType("Walker");
  const extra = await api.patchProductType({
    _id: type._id,
    name: type.name,
    modules: [{ name: "Extra", isDefault: false, treatmentIds: [] }],
  });
  const dir = await Deno.makeTempDir();
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "custom-1.xz")));
  await Deno.remove(dir, { recursive: true });
  await api.patchDevice({
    deviceId: "dev-001",
    productTypeId: type._id,
    moduleIds: [extra.modules[0]._id],
    firmware: fw._id,
  });

  await visit("/devices");
  await signIn();
  const table = page.locator(".p-datatable");
  const rows = table.locator("tbody tr");
  await table.getByText("dev-000", { exact: true }).waitFor();
  assert.equal(await rows.count(), 25, "default page size 25");
  for (
    const h of [
      "Device ID",
      "Product Type",
      "Custom firmware",
      "Additional Modules",
      "Additional Treatments",
      "Last login",
      "Updated",
    ]
  ) {
    await table.locator("th", { hasText: h }).first().waitFor();
  }
  // dev-001: type name, warning mark, module count; others '-'.
  const row1 = rows.filter({ hasText: "dev-001" });
  await row1.getByText("Walker").waitFor();
  await row1.getByRole("img", { name: "Custom firmware set" }).waitFor();
  const cells = await row1.locator("td").allInnerTexts();
  // The first cell is the row's selection checkbox.
  assert.equal(cells[4].trim(), "1");
  assert.equal(cells[5].trim(), "-");
  assert.match(cells[3], /custom-1\.xz/, "the custom firmware's name");
  const row2 = await rows.filter({ hasText: "dev-002" }).locator("td").allInnerTexts();
  assert.equal(row2[2].trim(), "-");
  assert.equal(await rows.filter({ hasText: "dev-002" }).getByRole("img", { name: "Custom firmware set" }).count(), 0);
  assert.match(cells[6], /\d{4}/, "last login is a date");
  await screenshot("devices-01-list");

  // Next page: the URL keeps it.
  await settled(page);
  await page.getByRole("button", { name: "Next Page" }).click();
  await table.getByText("dev-025", { exact: true }).waitFor();
  assert.equal(new URL(page.url()).search, "?page=1");
  await page.reload();
  await table.getByText("dev-025", { exact: true }).waitFor();

  // Changing the size resets to page 0.
  await page.getByLabel("Rows per page").selectOption("10");
  await table.getByText("dev-000", { exact: true }).waitFor();
  assert.equal(await rows.count(), 10);
  assert.equal(new URL(page.url()).search, "?size=10");

  // Search by device id (server q), kept in the URL.
  await page.getByLabel("Search on device ID").fill("DEV-05");
  await page.waitForURL(/q=DEV-05/);
  await table.getByText("dev-059", { exact: true }).waitFor();
  assert.equal(await rows.count(), 10);
  assert.equal(await table.getByText("dev-000", { exact: true }).count(), 0);
  await screenshot("devices-02-search");
  await page.reload();
  assert.equal(await page.getByLabel("Search on device ID").inputValue(), "DEV-05");
  await table.getByText("dev-059", { exact: true }).waitFor();

  // Back returns to the unfiltered page.
  await page.goBack();
  await page.waitForURL((u) => u.search === "?size=10");
  await table.getByText("dev-000", { exact: true }).waitFor();
  assert.equal(await page.getByLabel("Search on device ID").inputValue(), "");

  // A page beyond the end moves to the last page.
  await visit("/devices?page=40&size=10");
  await table.getByText("dev-059", { exact: true }).waitFor();
  await page.waitForURL((u) => u.search === "?page=5&size=10");
  await visit("/devices?size=10");
  await table.getByText("dev-000", { exact: true }).waitFor();

  // The keyboard reaches a device through its Device ID link.
  await table.getByRole("link", { name: "dev-001" }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Device dev-001" }).waitFor();
  await page.goBack();
  await table.getByText("dev-000", { exact: true }).waitFor();

  // A row click opens the device.
  await rows.filter({ hasText: "dev-003" }).locator("td").nth(5).click();
  await page.getByRole("heading", { name: "Device dev-003" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/devices/dev-003");
  await page.goBack();
  await table.getByText("dev-000", { exact: true }).waitFor();
  assert.equal(new URL(page.url()).search, "?size=10");
});

e2eTest("device detail: product type with confirm, modules, treatments, firmware", async (c) => {
  const { page, visit, signIn, screenshot, srv, api } = c;
  await checkInDevices(srv, ["unit-1"]);
  await importTreatments(api, [treatment("Knee relief", 4, "Pain"), treatment("Calf recovery", 2, "Sport")]);
  const treatments = await api.listTreatments();
  const knee = treatments.find((t) => t.name === "Knee relief")!;
  const walker = await api.createProductType("Walker");
  const typed = await api.patchProductType({
    _id: walker._id,
    name: walker.name,
    modules: [
      { name: "Base", isDefault: true, treatmentIds: [knee._id] },
      { name: "Sport pack", isDefault: false, treatmentIds: [] },
    ],
  });
  const sportPack = typed.modules.find((m) => m.name === "Sport pack")!;
  await api.createProductType("Runner");
  const dir = await Deno.makeTempDir();
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "special-2.xz")));
  await Deno.remove(dir, { recursive: true });

  await visit("/devices/unit-1");
  await signIn();
  await page.getByRole("heading", { name: "Device unit-1" }).waitFor();
  await page.getByText(/Created .* · Updated /).waitFor();
  const info = page.locator(".p-card", { hasText: "Device information" });
  for (
    const [label, value] of [["Version App", "2.4.1"], ["Version OS", "Linux 6.1"], [
      "Version Channels",
      "ch-fw 1.2 / ch-fw 1.3",
    ]]
  ) {
    assert.equal((await info.locator("tr", { hasText: label }).locator("td").innerText()).trim(), value);
  }
  assert.match(await info.locator("tr", { hasText: "Last logged in" }).locator("td").innerText(), /\d{4}/);
  await page.locator(".p-dropdown-label", { hasText: "No product type assigned" }).waitFor();

  // Product type: confirm, then PATCH with moduleIds [].
  const typeDropdown = page.locator(".p-dropdown", { has: page.locator("#device-product-type") });
  await pick(page, typeDropdown, "Walker");
  const confirm = page.getByRole("dialog", { name: "Change product type to Walker?" });
  await confirm.getByText("Are you sure you want to change product type?").waitFor();
  await screenshot("device-01-confirm-product-type");
  await confirm.getByRole("button", { name: "Change product type" }).click();
  await confirm.waitFor({ state: "hidden" });
  const modules = page.locator(".p-card", { hasText: "Enabled modules" });
  await modules.getByText("(Default)").waitFor();
  assert.equal((await api.getDevice("unit-1")).productTypeId, walker._id);
  const base = modules.getByLabel(/Base/);
  assert.equal(await base.isChecked(), true);
  assert.equal(await base.isDisabled(), true);
  const sport = modules.getByLabel("Sport pack");
  assert.equal(await sport.isChecked(), false);
  await modules.locator("label", { hasText: "Sport pack" }).click();
  await page.waitForFunction(() => true);
  await assertEventually(async () => assert.deepEqual((await api.getDevice("unit-1")).moduleIds, [sportPack._id]));
  // The page shows the saved state once it has re-read the device (on a busy machine, after the API already has it).
  await assertEventually(async () => assert.equal(await sport.isChecked(), true));

  // The jump button opens the product type.
  await page.getByRole("button", { name: "Open product type" }).click();
  await page.waitForURL(new RegExp(`/product_types/${walker._id}$`));
  await page.goBack();
  await page.getByRole("heading", { name: "Device unit-1" }).waitFor();

  // Cancel leaves everything as it was.
  await pick(page, typeDropdown, "No product type assigned");
  const toNone = page.getByRole("dialog", { name: "Change product type to none?" });
  await toNone.getByRole("button", { name: "Keep current" }).click();
  await toNone.waitFor({ state: "hidden" });
  assert.equal((await api.getDevice("unit-1")).productTypeId, walker._id);

  // Additional treatments: add through the picker (no duplicates), open, remove.
  const card = page.locator(".p-card", { hasText: "Additional treatments" });
  await card.getByRole("button", { name: "Add treatment" }).click();
  await card.locator(".p-dropdown").click();
  await page.getByRole("option", { name: /Knee relief/ }).click();
  await page.getByRole("dialog", { name: "Add treatment Knee relief to device unit-1?" })
    .getByRole("button", { name: "Add to device" }).click();
  const entry = card.locator("li", { hasText: "Knee relief" });
  await entry.getByText("4 ch").waitFor();
  await entry.getByText("Pain").waitFor();
  await assertEventually(async () =>
    assert.deepEqual((await api.getDevice("unit-1")).additionalTreatmentIds, [knee._id])
  );
  await card.getByRole("button", { name: "Add treatment" }).click();
  await card.locator(".p-dropdown").click();
  assert.equal(await page.getByRole("option", { name: /Knee relief/ }).count(), 0, "no duplicates offered");
  await page.getByRole("option", { name: /Calf recovery/ }).waitFor();
  await page.keyboard.press("Escape");
  await screenshot("device-02-detail");

  await entry.getByRole("link").click();
  await page.waitForURL(new RegExp(`/treatments/${knee._id}$`));
  await page.goBack();
  await page.getByRole("heading", { name: "Device unit-1" }).waitFor();
  await card.locator("li", { hasText: "Knee relief" }).getByRole("button", { name: "Remove Knee relief" }).click();
  await page.getByRole("dialog", { name: "Remove treatment Knee relief from device unit-1?" })
    .getByRole("button", { name: "Remove from device" }).click();
  await card.getByText("No additional treatments").waitFor();
  assert.deepEqual((await api.getDevice("unit-1")).additionalTreatmentIds, []);

  // Custom firmware: default or one of the uploaded ones.
  const fwCard = page.locator(".p-card", { hasText: "Custom device firmware" });
  await fwCard.locator(".p-dropdown-label", { hasText: "Default device firmware" }).waitFor();
  await pick(page, fwCard.locator(".p-dropdown"), "special-2.xz");
  const setFw = page.getByRole("dialog", { name: "Set custom firmware special-2.xz on device unit-1?" });
  await setFw.getByText("It will install special-2.xz at its next check-in instead of the default device firmware.")
    .waitFor();
  assert.equal(await setFw.getByRole("button", { name: /^(OK|Cancel)$/ }).count(), 0, "buttons named for the action");
  await setFw.getByRole("button", { name: "Set firmware" }).click();
  await assertEventually(async () => assert.equal((await api.getDevice("unit-1")).firmware, fw._id));
  await pick(page, fwCard.locator(".p-dropdown"), "Default device firmware");
  await page.getByRole("dialog", { name: "Clear custom firmware special-2.xz on device unit-1?" })
    .getByRole("button", { name: "Clear custom firmware" }).click();
  await assertEventually(async () => assert.equal((await api.getDevice("unit-1")).firmware, null));

  // A confirmed change to none clears type and modules.
  await pick(page, typeDropdown, "No product type assigned");
  await page.getByRole("dialog", { name: "Change product type to none?" })
    .getByRole("button", { name: "Change product type" }).click();
  await assertEventually(async () => {
    const d = await api.getDevice("unit-1");
    assert.equal(d.productTypeId, null);
    assert.deepEqual(d.moduleIds, []);
  });
  await screenshot("device-03-after-reset");
});

e2eTest("device detail: a refused change shows the server's msg in a toast", async (c) => {
  const { page, visit, signIn, srv, api } = c;
  await checkInDevices(srv, ["unit-2"]);
  const dir = await Deno.makeTempDir();
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "gone.xz")));
  await Deno.remove(dir, { recursive: true });
  await visit("/devices/unit-2");
  await signIn();
  await page.getByRole("heading", { name: "Device unit-2" }).waitFor();
  const fwCard = page.locator(".p-card", { hasText: "Custom device firmware" });
  // The page has loaded its firmware list (on a busy machine the heading shows before the list arrives)...
  await fwCard.locator(".p-dropdown").click();
  await page.locator(".p-dropdown-panel").getByRole("option", { name: "gone.xz", exact: true }).waitFor();
  await page.keyboard.press("Escape");
  await page.locator(".p-dropdown-panel").waitFor({ state: "hidden" });
  // ...then the firmware disappears: the PATCH is refused with 400.
  await api.deleteFirmware(fw._id);
  await pick(page, fwCard.locator(".p-dropdown"), "gone.xz");
  await page.getByRole("dialog", { name: "Set custom firmware gone.xz on device unit-2?" })
    .getByRole("button", { name: "Set firmware" }).click();
  await page.locator(".p-toast").getByText(/firmware/i).waitFor();
  await c.screenshot("device-04-error-toast");
  assert.equal((await api.getDevice("unit-2")).firmware, null);
});

e2eTest("devices list: a failed load shows 'Error loading data.'", async ({ page, visit, signIn, screenshot }) => {
  await visit("/");
  await signIn();
  // The network is the boundary: answer the list call with a server error.
  await page.route(/\/api\/v1\/devices\?/, (route) =>
    route.fulfill({
      status: 500,
      contentType: "application/json",
      body: JSON.stringify({
        error: "internal",
        msg: "Something went wrong on the server; the request changed nothing.",
      }),
    }));
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Devices" }).click();
  await page.getByRole("alert").getByText("Error loading data.").waitFor();
  await screenshot("devices-03-load-error");
  await page.unroute(/\/api\/v1\/devices\?/);
});
