/**
 * No lost updates in the console: two operators on the same item, one of them on a page loaded before the other's
 * change. The stale change is refused, the console says so, shows the current version, and the change can be applied
 * again on it; the other operator's change survives.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { assertAccessible } from "./a11y.ts";
import { assertEventually, checkInDevices, e2eTest, pick, settled } from "./helpers.ts";

const toast = (page: Page, summary: string) => page.locator(".p-toast-message", { hasText: summary });
const moduleCard = (page: Page, name: string) => page.getByLabel(`Module ${name}`, { exact: true });

e2eTest("product type: a stale rename is refused, the module added meanwhile is shown and kept", async (c) => {
  const { page: a, browser, visit, signIn, screenshot, api } = c;
  const walker = await api.createProductType("Walker");
  await api.patchProductType({
    _id: walker._id,
    name: walker.name,
    modules: [{ name: "Base", isDefault: true, treatmentIds: [] }],
  });
  await visit(`/product_types/${walker._id}`);
  await signIn();
  await a.getByRole("heading", { name: "Product type: Walker" }).waitFor();
  // Operator B: another tab of the same console, loaded now, before A's change.
  const b = await browser.newPage();
  await visit(`/product_types/${walker._id}`, b);
  await b.getByRole("heading", { name: "Product type: Walker" }).waitFor();
  await moduleCard(b, "Base").waitFor();

  // A adds a module.
  await a.getByRole("button", { name: "Add module" }).click();
  const aDialog = a.getByRole("dialog");
  await aDialog.getByPlaceholder("Enter module name").fill("Night pack");
  await aDialog.getByRole("button", { name: "Save" }).click();
  await aDialog.waitFor({ state: "hidden" });
  await moduleCard(a, "Night pack").waitFor();
  assert.equal(await moduleCard(b, "Night pack").count(), 0, "B's page is stale");

  // B renames on the stale page: refused; the dialog stays open with B's name, says so on top, and the current
  // version (with A's module) is shown behind it.
  await b.getByRole("button", { name: "Edit product type name" }).click();
  const bDialog = b.getByRole("dialog");
  await bDialog.getByPlaceholder("Enter product type name").fill("Walker Pro");
  await bDialog.getByRole("button", { name: "OK" }).click();
  await bDialog.getByRole("alert").getByText(
    "This product type was changed by someone else while you were editing, so nothing was saved.",
    { exact: false },
  ).waitFor();
  await moduleCard(b, "Night pack").waitFor();
  assert.equal(await bDialog.getByPlaceholder("Enter product type name").inputValue(), "Walker Pro", "B's input kept");
  await b.getByRole("heading", { name: "Product type: Walker" }).waitFor();
  await screenshot("conflicts-01-product-type-refused", b);
  let stored = await api.getProductType(walker._id);
  assert.equal(stored.name, "Walker", "the stale rename changed nothing");
  assert.deepEqual(stored.modules.map((m) => m.name), ["Base", "Night pack"]);

  // B applies the rename again from the same dialog, on the current version: both changes are kept.
  await bDialog.getByRole("button", { name: "OK" }).click();
  await b.getByRole("heading", { name: "Product type: Walker Pro" }).waitFor();
  await toast(b, "Product type renamed").waitFor();
  await bDialog.waitFor({ state: "hidden" });
  stored = await api.getProductType(walker._id);
  assert.equal(stored.name, "Walker Pro");
  assert.deepEqual(stored.modules.map((m) => m.name), ["Base", "Night pack"], "A's module survives");

  // A is stale now: deleting a module from A's page is refused too, and A sees B's name.
  await moduleCard(a, "Base").getByRole("button", { name: "Delete module Base" }).click();
  await aDialog.getByRole("button", { name: "Delete module", exact: true }).click();
  await toast(a, "Changed by someone else").waitFor();
  await a.getByRole("heading", { name: "Product type: Walker Pro" }).waitFor();
  await moduleCard(a, "Base").waitFor();
  assert.equal((await api.getProductType(walker._id)).modules.length, 2);
  await b.close();
});

e2eTest("device: a stale custom firmware change is refused, the current one shown, then applied again", async (c) => {
  const { page: a, browser, visit, signIn, screenshot, srv, api } = c;
  await checkInDevices(srv, ["unit-7"]);
  const dir = await Deno.makeTempDir();
  const fwA = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-a.xz")));
  const fwB = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-b.xz")));
  await Deno.remove(dir, { recursive: true });
  const firmwareOf = (page: Page) =>
    page.locator(".p-card", { hasText: "Custom device firmware" }).locator(".p-dropdown");

  await visit("/devices/unit-7");
  await signIn();
  await a.getByRole("heading", { name: "Device unit-7" }).waitFor();
  await settled(a);
  const b = await browser.newPage();
  await visit("/devices/unit-7", b);
  await b.getByRole("heading", { name: "Device unit-7" }).waitFor();
  await settled(b);

  // A sets fw-a.
  await pick(a, firmwareOf(a), "fw-a.xz");
  await a.getByRole("dialog", { name: "Set custom firmware fw-a.xz on device unit-7?" })
    .getByRole("button", { name: "Set firmware" }).click();
  await toast(a, "Custom firmware set").waitFor();
  assert.equal((await api.getDevice("unit-7")).firmware, fwA._id);

  // B, still showing the default, sets fw-b: refused; the confirmation stays open with B's choice, says so, and now
  // says what it replaces (A's fw-a); the card behind it shows fw-a.
  assert.equal(await firmwareOf(b).locator(".p-dropdown-label").textContent(), "Default device firmware");
  await pick(b, firmwareOf(b), "fw-b.xz");
  const bConfirm = b.getByRole("dialog", { name: "Set custom firmware fw-b.xz on device unit-7?" });
  await bConfirm.getByText("It will install fw-b.xz at its next check-in instead of the default device firmware.")
    .waitFor();
  await bConfirm.getByRole("button", { name: "Set firmware" }).click();
  await bConfirm.getByRole("alert").getByText(
    "This device was changed by someone else while you were editing, so nothing was saved. " +
      "Now: custom firmware fw-a.xz. Your change is kept here: Set firmware applies it to the current version.",
  ).waitFor();
  await bConfirm.getByText("It will install fw-b.xz at its next check-in instead of fw-a.xz.").waitFor();
  await firmwareOf(b).locator(".p-dropdown-label", { hasText: "fw-a.xz" }).waitFor();
  assert.equal(await toast(b, "Changed by someone else").count(), 0, "the dialog says it, not a toast");
  await b.waitForTimeout(350); // the dialog's animation ends before axe measures colours
  await assertAccessible(b, "custom firmware confirmation after a conflict");
  await screenshot("conflicts-02-device-refused", b);
  assert.equal((await api.getDevice("unit-7")).firmware, fwA._id, "A's firmware stays");

  // B applies the change again from the same dialog, on the current version; Undo would bring back A's fw-a.
  await bConfirm.getByRole("button", { name: "Set firmware" }).click();
  await toast(b, "Custom firmware set").waitFor();
  await bConfirm.waitFor({ state: "hidden" });
  assert.equal((await api.getDevice("unit-7")).firmware, fwB._id);
  await toast(b, "Custom firmware set").getByRole("button", { name: "Undo" }).click();
  await assertEventually(async () => assert.equal((await api.getDevice("unit-7")).firmware, fwA._id));

  // The product type's confirmation stays open on a conflict, says so, and its "Change product type" applies the
  // choice again.
  const walker = await api.createProductType("Walker");
  const runner = await api.createProductType("Runner");
  const typeOf = (page: Page) => page.locator(".p-card", { hasText: "Product type" }).locator(".p-dropdown").first();
  await a.reload();
  await b.reload();
  await b.getByRole("heading", { name: "Device unit-7" }).waitFor();
  await settled(b);
  await a.getByRole("heading", { name: "Device unit-7" }).waitFor();
  await pick(a, typeOf(a), "Walker");
  await a.getByRole("dialog", { name: "Change product type to Walker?" })
    .getByRole("button", { name: "Change product type" }).click();
  await toast(a, "Product type changed").waitFor();
  await pick(b, typeOf(b), "Runner");
  const confirm = b.getByRole("dialog", { name: "Change product type to Runner?" });
  await confirm.getByRole("button", { name: "Change product type" }).click();
  await confirm.getByRole("alert").getByText(
    "This device was changed by someone else while you were editing, so nothing was saved. Now: product type Walker.",
    { exact: false },
  ).waitFor();
  assert.equal((await api.getDevice("unit-7")).productTypeId, walker._id, "A's choice stays");
  await screenshot("conflicts-02b-device-type-kept-open", b);
  await confirm.getByRole("button", { name: "Change product type" }).click();
  await toast(b, "Product type changed").waitFor();
  await confirm.waitFor({ state: "hidden" });
  assert.equal((await api.getDevice("unit-7")).productTypeId, runner._id);
  await b.close();
});

e2eTest("firmwares page: a stale default firmware change is refused and the current default shown", async (c) => {
  const { page: a, browser, visit, signIn, api } = c;
  const dir = await Deno.makeTempDir();
  const fwA = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-a.xz")));
  const fwB = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-b.xz")));
  await Deno.remove(dir, { recursive: true });
  const card = (page: Page, name: string) => page.getByLabel(`Firmware ${name}`, { exact: true });
  const setDefault = async (page: Page, name: string) => {
    await card(page, name).getByRole("button", { name: "Set as default firmware" }).click();
    await page.getByRole("dialog", { name: `Set default firmware to ${name}?` })
      .getByRole("button", { name: "Set as default firmware" }).click();
  };

  await visit("/device_firmwares");
  await signIn();
  await card(a, "fw-b.xz").waitFor();
  const b = await browser.newPage();
  await visit("/device_firmwares", b);
  await card(b, "fw-b.xz").waitFor();
  await settled(b);

  await setDefault(a, "fw-a.xz");
  await toast(a, "Default firmware set").waitFor();
  await setDefault(b, "fw-b.xz");
  await toast(b, "Changed by someone else").getByText(/^The default firmware was changed by someone else\./).waitFor();
  await card(b, "fw-a.xz").getByText("Default", { exact: true }).waitFor();
  const [managed] = await api.listDeviceTypes();
  assert.equal(managed.defaultFirmware, fwA._id);

  await setDefault(b, "fw-b.xz");
  await toast(b, "Default firmware set").waitFor();
  assert.equal((await api.listDeviceTypes())[0].defaultFirmware, fwB._id);
  await b.close();
});
