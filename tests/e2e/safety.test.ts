/**
 * Operator safety in the browser: changes that alter what a device runs are confirmed (focus on Cancel), counted,
 * reported in a toast with Undo for removals, and leave the keyboard focus on the changed control; field errors are
 * words beside their field.
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { assertEventually, checkInDevices, e2eTest, importTreatments, pick, settled, treatment } from "./helpers.ts";

/** What has the keyboard focus: its id, its accessible label or text, and whether it is the page body. */
function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      body: !el || el === document.body,
      id: el?.id ?? "",
      label: (el?.getAttribute("aria-label") ?? el?.textContent ?? "").trim(),
    };
  });
}

async function focusIs(page: Page, check: (f: Awaited<ReturnType<typeof focused>>) => boolean, what: string) {
  const until = Date.now() + 5000;
  let last = await focused(page);
  while (!check(last)) {
    if (Date.now() > until) assert.fail(`focus should be ${what}, is ${JSON.stringify(last)}`);
    await page.waitForTimeout(50);
    last = await focused(page);
  }
}

/**
 * Waits for a confirm dialog to show with the focus on its button that leaves things as they are ("Keep current",
 * "Cancel"), then presses Enter: that must only cancel.
 */
async function enterCancels(page: Page, dialog: Locator, keep = "Cancel") {
  await dialog.waitFor();
  await focusIs(page, (f) => f.label === keep, `on ${keep}`);
  await page.keyboard.press("Enter");
  await dialog.waitFor({ state: "hidden" });
}

const toast = (page: Page, summary: string) => page.locator(".p-toast-message", { hasText: summary });

e2eTest(
  "device changes: confirmed with focus on the button that keeps things, counted, toasted, undoable, focus kept",
  async (c) => {
    const { page, visit, signIn, screenshot, srv, api } = c;
    await checkInDevices(srv, ["unit-1"]);
    await importTreatments(api, [treatment("Knee relief", 4), treatment("Calf recovery", 2, "Sport")]);
    const knee = (await api.listTreatments()).find((t) => t.name === "Knee relief")!;
    const walker = await api.createProductType("Walker");
    const typed = await api.patchProductType({
      _id: walker._id,
      name: walker.name,
      modules: [
        { name: "Base", isDefault: true, treatmentIds: [] },
        { name: "Sport pack", isDefault: false, treatmentIds: [] },
        { name: "Night", isDefault: false, treatmentIds: [] },
      ],
    });
    const enabled = typed.modules.filter((m) => !m.isDefault).map((m) => m._id);
    await api.createProductType("Runner");
    const dir = await Deno.makeTempDir();
    const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "custom-3.xz")));
    await Deno.remove(dir, { recursive: true });
    await api.patchDevice({
      deviceId: "unit-1",
      productTypeId: walker._id,
      moduleIds: enabled,
      additionalTreatmentIds: [knee._id],
      firmware: fw._id,
    });

    await visit("/devices/unit-1");
    await signIn();
    await page.getByRole("heading", { name: "Device unit-1" }).waitFor();
    await settled(page);

    // Product type: the dialog counts the enabled modules it removes; Enter cancels; OK changes; Undo restores.
    const typeDropdown = page.locator(".p-dropdown", { has: page.locator("#device-product-type") });
    await pick(page, typeDropdown, "Runner");
    const toRunner = page.getByRole("dialog", { name: "Change product type to Runner?" });
    await toRunner.getByText("Are you sure you want to change product type?").waitFor();
    await toRunner.getByText("2 enabled modules will be removed: Sport pack, Night.").waitFor();
    await screenshot("safety-01-confirm-product-type");
    await enterCancels(page, toRunner, "Keep current");
    assert.equal((await api.getDevice("unit-1")).productTypeId, walker._id, "Enter must not change the product type");

    await pick(page, typeDropdown, "Runner");
    await toRunner.getByRole("button", { name: "Change product type" }).click();
    await toast(page, "Product type changed").getByText(/2 enabled modules removed/).waitFor();
    await focusIs(page, (f) => f.id === "device-product-type", "on the product type dropdown");
    let d = await api.getDevice("unit-1");
    assert.notEqual(d.productTypeId, walker._id);
    assert.deepEqual(d.moduleIds, []);
    await screenshot("safety-02-toast-undo");
    await toast(page, "Product type changed").getByRole("button", { name: "Undo" }).click();
    await toast(page, "Change undone").waitFor();
    await assertEventually(async () => {
      d = await api.getDevice("unit-1");
      assert.equal(d.productTypeId, walker._id);
      assert.deepEqual([...d.moduleIds].sort(), [...enabled].sort());
    });
    await page.locator(".p-dropdown-label", { hasText: "Walker" }).waitFor();
    await focusIs(page, (f) => f.id === "device-product-type", "back on the product type dropdown after Undo");

    // Additional treatment removal: confirm, toast with Undo that puts it back, focus never on the body.
    const card = page.locator(".p-card", { hasText: "Additional treatments" });
    const removeKnee = card.getByRole("button", { name: "Remove Knee relief" });
    await removeKnee.click();
    const removeDialog = page.getByRole("dialog", { name: "Remove treatment Knee relief from device unit-1?" });
    await removeDialog.getByText("Device unit-1 will no longer offer Knee relief after its next check-in.").waitFor();
    await enterCancels(page, removeDialog, "Keep treatment");
    assert.deepEqual((await api.getDevice("unit-1")).additionalTreatmentIds, [knee._id]);
    await removeKnee.click();
    await removeDialog.getByRole("button", { name: "Remove from device" }).click();
    await card.getByText("No additional treatments").waitFor();
    await toast(page, "Treatment removed").getByText("Knee relief removed from device unit-1.").waitFor();
    // Nothing left in the list: focus goes to the add button.
    await focusIs(page, (f) => f.id === "device-add-treatment", "on the add treatment button");
    await toast(page, "Treatment removed").getByRole("button", { name: "Undo" }).click();
    await removeKnee.waitFor();
    assert.deepEqual((await api.getDevice("unit-1")).additionalTreatmentIds, [knee._id]);
    await focusIs(page, (f) => f.label === "Remove Knee relief", "on the restored entry");

    // Adding asks too and is reported (no Undo: nothing was taken away).
    await card.getByRole("button", { name: "Add treatment" }).click();
    await card.locator(".p-dropdown").click();
    await page.getByRole("option", { name: /Calf recovery/ }).click();
    const addDialog = page.getByRole("dialog", { name: "Add treatment Calf recovery to device unit-1?" });
    await enterCancels(page, addDialog, "Don't add");
    assert.deepEqual((await api.getDevice("unit-1")).additionalTreatmentIds, [knee._id]);
    await card.locator(".p-dropdown").click();
    await page.getByRole("option", { name: /Calf recovery/ }).click();
    await addDialog.getByRole("button", { name: "Add to device" }).click();
    await toast(page, "Treatment added").waitFor();
    assert.equal(await toast(page, "Treatment added").getByRole("button", { name: "Undo" }).count(), 0);
    await card.getByRole("button", { name: "Remove Calf recovery" }).waitFor();
    await focusIs(page, (f) => f.id === "device-add-treatment", "on the add treatment button");
    assert.equal((await api.getDevice("unit-1")).additionalTreatmentIds.length, 2);

    // Custom firmware: clearing asks (Enter cancels), then Undo brings it back; focus stays on the dropdown.
    const fwDropdown = page.locator(".p-card", { hasText: "Custom device firmware" }).locator(".p-dropdown");
    await pick(page, fwDropdown, "Default device firmware");
    const clear = page.getByRole("dialog", { name: "Clear custom firmware custom-3.xz on device unit-1?" });
    await clear.getByText(
      "Device unit-1 will install the default device firmware at its next check-in instead of custom-3.xz.",
    ).waitFor();
    await enterCancels(page, clear, "Keep current");
    assert.equal((await api.getDevice("unit-1")).firmware, fw._id);
    await pick(page, fwDropdown, "Default device firmware");
    await clear.getByRole("button", { name: "Clear custom firmware" }).click();
    await toast(page, "Custom firmware cleared").waitFor();
    await assertEventually(async () => assert.equal((await api.getDevice("unit-1")).firmware, null));
    await focusIs(page, (f) => f.id === "device-firmware", "on the firmware dropdown");
    await toast(page, "Custom firmware cleared").getByRole("button", { name: "Undo" }).click();
    await assertEventually(async () => assert.equal((await api.getDevice("unit-1")).firmware, fw._id));
    await page.locator(".p-dropdown-label", { hasText: "custom-3.xz" }).waitFor();
    await focusIs(page, (f) => f.id === "device-firmware", "on the firmware dropdown after Undo");

    // A module switched off: toast with Undo, focus back on its checkbox.
    const night = page.locator(".p-card", { hasText: "Enabled modules" }).locator("label", { hasText: "Night" });
    await night.click();
    await toast(page, "Module disabled").waitFor();
    const nightId = typed.modules.find((m) => m.name === "Night")!._id;
    await focusIs(page, (f) => f.id === `module-${nightId}`, "on the Night checkbox");
    await toast(page, "Module disabled").getByRole("button", { name: "Undo" }).click();
    await assertEventually(async () => assert.ok((await api.getDevice("unit-1")).moduleIds.includes(nightId)));
    await screenshot("safety-03-after-undo");
  },
);

e2eTest("deleting a product type: Enter does not delete, the dialog counts the devices that lose it", async (c) => {
  const { page, visit, signIn, screenshot, srv, api } = c;
  await checkInDevices(srv, ["a-1", "a-2", "a-3", "b-1"]);
  const walker = await api.createProductType("Walker");
  const typed = await api.patchProductType({
    _id: walker._id,
    name: walker.name,
    modules: [{ name: "Sport pack", isDefault: false, treatmentIds: [] }],
  });
  for (const id of ["a-1", "a-2", "a-3"]) await api.patchDevice({ deviceId: id, productTypeId: walker._id });
  await api.patchDevice({ deviceId: "a-1", moduleIds: [typed.modules[0]._id] });

  await visit(`/product_types/${walker._id}`);
  await signIn();
  await page.getByRole("heading", { name: "Product type: Walker" }).waitFor();

  // A module: one device has it enabled.
  await page.getByRole("button", { name: "Delete module Sport pack" }).click();
  const moduleDialog = page.getByRole("dialog", { name: "Delete module Sport pack?" });
  await moduleDialog.getByText("1 device has this module enabled and will lose it.").waitFor();
  await enterCancels(page, moduleDialog, "Keep module");
  assert.equal((await api.getProductType(walker._id)).modules.length, 1);

  const del = page.getByRole("button", { name: "Delete", exact: true });
  await del.click();
  const dialog = page.getByRole("dialog", { name: "Delete product type Walker?" });
  await dialog.getByText("Are you sure you want to delete this product type?").waitFor();
  await dialog.getByText("3 devices have this product type and will lose it.").waitFor();
  await screenshot("safety-04-confirm-delete-product-type");
  await enterCancels(page, dialog, "Keep product type");
  assert.equal((await api.listProductTypes()).length, 1, "Enter must not delete the product type");
  assert.equal((await api.getDevice("a-2")).productTypeId, walker._id);
  await focusIs(page, (f) => f.label === "Delete", "back on the Delete button");

  // Space on the focused "Keep product type" does not delete either; "Delete product type" does, with a toast, and the
  // list heading gets the focus.
  await del.click();
  await dialog.waitFor();
  await focusIs(page, (f) => f.label === "Keep product type", "on Keep product type");
  await page.keyboard.press("Space");
  await dialog.waitFor({ state: "hidden" });
  assert.equal((await api.listProductTypes()).length, 1);
  await del.click();
  await dialog.getByRole("button", { name: "Delete product type" }).click();
  await page.waitForURL((u) => u.pathname === "/product_types");
  await toast(page, "Product type deleted").waitFor();
  await focusIs(page, (f) => f.label.startsWith("Product types ("), "on the list heading");
  assert.equal((await api.getDevice("a-2")).productTypeId, null);
});

e2eTest("field errors are words beside the field; toasts sit clear of the page's buttons", async (c) => {
  const { page, visit, signIn, screenshot, api } = c;
  const pt = await api.createProductType("Walker");
  await visit(`/product_types/${pt._id}`);
  await signIn();
  await page.getByRole("heading", { name: "Product type: Walker" }).waitFor();

  // Change password: the server's "new_password: ..." becomes a sentence under New password.
  await page.getByRole("button", { name: "Account" }).click();
  await page.locator("#account-menu").getByText("Change password").click();
  const dlg = page.getByRole("dialog", { name: "Change password" });
  await dlg.getByLabel("Current password").fill("admin-password-1");
  await dlg.getByLabel("New password", { exact: true }).fill("short");
  await dlg.getByLabel("New password (confirmation)").fill("short");
  await dlg.getByRole("button", { name: "Save" }).click();
  const sentence = dlg.getByText("New password must be at least 8 characters long.", { exact: true });
  await sentence.waitFor();
  await dlg.getByText("Error changing password").waitFor();
  assert.equal(await page.getByText(/new_password/).count(), 0, "no API field names on the page");
  const newField = dlg.getByLabel("New password", { exact: true });
  assert.equal(await newField.getAttribute("aria-invalid"), "true");
  assert.equal(await newField.getAttribute("aria-describedby"), await sentence.getAttribute("id"));
  // The sentence sits right under its field.
  const fieldBox = (await newField.boundingBox())!;
  const textBox = (await sentence.boundingBox())!;
  assert.ok(textBox.y >= fieldBox.y + fieldBox.height - 1 && textBox.y - (fieldBox.y + fieldBox.height) < 24);
  await focusIs(page, (f) => f.id === "cp-new", "on the New password field");
  await screenshot("safety-05-field-error");

  // A wrong current password shows under Current password.
  await dlg.getByLabel("Current password").fill("wrong-password");
  await newField.fill("long-enough-1");
  await dlg.getByLabel("New password (confirmation)").fill("long-enough-1");
  await dlg.getByRole("button", { name: "Save" }).click();
  await dlg.locator("#cp-current-error").getByText("Current password is incorrect.").waitFor();
  await page.keyboard.press("Escape");
  await dlg.waitFor({ state: "hidden" });

  // A success toast after a rename: bottom right, not over the header's buttons, gone within a few seconds.
  await page.getByRole("button", { name: "Edit product type name" }).click();
  const rename = page.getByRole("dialog", { name: "Edit product type name" });
  await rename.getByPlaceholder("Enter product type name").fill("Walker 2");
  await rename.getByRole("button", { name: "OK" }).click();
  const renamed = toast(page, "Product type renamed");
  await renamed.waitFor();
  const box = (await renamed.boundingBox())!;
  const viewport = page.viewportSize()!;
  assert.ok(box.y > viewport.height / 2 && box.x > viewport.width / 2, `toast at ${JSON.stringify(box)}`);
  for (const name of ["Add module", "Delete", "Edit product type name"]) {
    const b = (await page.getByRole("button", { name, exact: true }).boundingBox())!;
    const overlaps = b.x < box.x + box.width && box.x < b.x + b.width && b.y < box.y + box.height &&
      box.y < b.y + b.height;
    assert.equal(overlaps, false, `the toast covers ${name}`);
  }
  await renamed.waitFor({ state: "detached", timeout: 8000 });
});
