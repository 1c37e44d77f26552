import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { e2eTest, importTreatments, treatment } from "./helpers.ts";

const dialog = (page: Page) => page.getByRole("dialog");
const moduleCard = (page: Page, name: string) => page.getByLabel(`Module ${name}`, { exact: true });

/** Opens the 'Add treatment' picker, filters by name and picks the one option. */
async function pick(dlg: Locator, page: Page, name: string) {
  await dlg.locator(".p-dropdown").click();
  const panel = page.locator(".p-dropdown-panel");
  await panel.getByRole("searchbox").or(panel.locator("input.p-dropdown-filter")).first().fill(name);
  await panel.getByRole("option", { name: new RegExp(`^${name}`) }).click();
  await panel.waitFor({ state: "hidden" });
}

e2eTest("product types: add, rename and delete with the dialogs and confirm", async (c) => {
  const { page, visit, signIn, screenshot, api } = c;
  await visit("/product_types");
  await signIn();
  await page.getByRole("heading", { name: "Product types (0)" }).waitFor();

  const add = page.getByRole("button", { name: "Add product type" });
  await add.hover();
  await page.locator(".p-tooltip").getByText("Add product type").waitFor();
  await add.click();
  const dlg = dialog(page);
  const input = dlg.getByPlaceholder("Enter name for product type");
  const ok = dlg.getByRole("button", { name: "OK" });
  assert.equal(await ok.isDisabled(), true);
  await input.fill("   ");
  assert.equal(await ok.isDisabled(), true, "OK stays disabled for a blank name");
  await input.fill("  E2E Baby  ");
  assert.equal(await ok.isDisabled(), false);
  await screenshot("product-types-01-add-dialog");
  await ok.click();
  await dlg.waitFor({ state: "hidden" });
  await page.getByRole("heading", { name: "Product types (1)" }).waitFor();
  await page.getByRole("cell", { name: "E2E Baby" }).waitFor();
  const { maxHeight, expected } = await page.locator(".p-datatable-wrapper").evaluate((el) => ({
    maxHeight: getComputedStyle(el).maxHeight,
    expected: `${innerHeight - 250}px`,
  }));
  assert.equal(maxHeight, expected, "table max height is the viewport height minus 250px");
  assert.deepEqual((await api.listProductTypes()).map((p) => p.name), ["E2E Baby"]);

  // A duplicate name: the server's msg beside the name field, the dialog stays open.
  await add.click();
  await input.fill("e2e baby");
  await ok.click();
  await dlg.getByText("A product type named e2e baby already exists (names ignore case).").waitFor();
  assert.equal(await input.getAttribute("aria-invalid"), "true");
  assert.equal(await dlg.isVisible(), true);
  await page.keyboard.press("Escape");
  await dlg.waitFor({ state: "hidden" });
  await screenshot("product-types-02-list");

  // Row click opens the detail.
  await page.getByRole("row", { name: /E2E Baby/ }).locator("td").nth(1).click();
  await page.getByRole("heading", { name: "Product type: E2E Baby" }).waitFor();
  await page.getByText("No modules present. Add one by clicking on the 'Add Module' button above.", { exact: true })
    .waitFor();
  await page.getByText(/^Created at: .* · Updated at: /).waitFor();

  // Rename: dialog starts with the current name; OK disabled on blank.
  await page.getByRole("button", { name: "Edit product type name" }).click();
  await dlg.getByText("Edit product type name", { exact: true }).waitFor();
  const rename = dlg.getByPlaceholder("Enter product type name");
  assert.equal(await rename.inputValue(), "E2E Baby");
  await rename.fill(" ");
  assert.equal(await ok.isDisabled(), true);
  await rename.fill("E2E Baby Plus");
  await rename.press("Enter");
  await page.getByRole("heading", { name: "Product type: E2E Baby Plus" }).waitFor();
  await dlg.waitFor({ state: "hidden" });
  await screenshot("product-types-03-renamed");

  // Delete: "Keep product type" keeps it; "Delete product type" deletes and returns to the list.
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await dlg.getByText("Delete product type E2E Baby Plus?").waitFor();
  await dlg.getByText("Are you sure you want to delete this product type?").waitFor();
  await screenshot("product-types-04-confirm-delete");
  await dlg.getByRole("button", { name: "Keep product type" }).click();
  await dlg.waitFor({ state: "hidden" });
  assert.equal((await api.listProductTypes()).length, 1);
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await dlg.getByRole("button", { name: "Delete product type" }).click();
  await page.waitForURL((u) => u.pathname === "/product_types");
  await page.getByRole("heading", { name: "Product types (0)" }).waitFor();
  assert.equal((await api.listProductTypes()).length, 0);
});

e2eTest("modules: add, edit and delete through the 'Edit module' dialog", async (c) => {
  const { page, visit, signIn, screenshot, api } = c;
  await importTreatments(api, [
    treatment("Zeta relief", 2, "Pain"),
    treatment("Alpha warmup", 4, "Sport"),
    treatment("Mid recovery", 1, "Recovery"),
  ]);
  const pt = await api.createProductType("Module Type");
  await visit(`/product_types/${pt._id}`);
  await signIn();
  await page.getByRole("heading", { name: "Product type: Module Type" }).waitFor();

  await page.getByRole("button", { name: "Add module" }).click();
  const dlg = dialog(page);
  await dlg.getByText("Edit module", { exact: true }).waitFor();
  const save = dlg.getByRole("button", { name: "Save" });
  assert.equal(await save.isDisabled(), true);
  await dlg.getByPlaceholder("Enter module name").fill("   ");
  assert.equal(await save.isDisabled(), true, "Save stays disabled for a blank name");
  await dlg.getByPlaceholder("Enter module name").fill("Legs");
  await dlg.getByLabel("Include as default on product type.").check();
  await pick(dlg, page, "Zeta relief");
  await pick(dlg, page, "Alpha warmup");
  const names = () => dlg.locator(".module-treatment-name").allTextContents();
  assert.deepEqual(await names(), ["Alpha warmup", "Zeta relief"], "kept sorted by name");
  // The picker no longer offers what is present.
  await dlg.locator(".p-dropdown").click();
  await page.locator(".p-dropdown-panel").getByRole("option").first().waitFor();
  const offered = await page.locator(".p-dropdown-panel").getByRole("option").allTextContents();
  assert.equal(offered.length, 1);
  assert.match(offered[0], /^Mid recovery/);
  // Escape closes only the open list, not the dialog around it.
  await page.keyboard.press("Escape");
  await page.locator(".p-dropdown-panel").waitFor({ state: "hidden" });
  assert.equal(await dlg.isVisible(), true);
  await screenshot("modules-01-dialog");
  await save.click();
  await dlg.waitFor({ state: "hidden" });

  const card = moduleCard(page, "Legs");
  await card.getByText("Default", { exact: true }).waitFor();
  await card.getByText("Alpha warmup").waitFor();
  await card.getByText("4 ch").waitFor();
  await card.getByText("Sport").waitFor();
  let stored = (await api.getProductType(pt._id)).modules;
  assert.equal(stored.length, 1);
  assert.equal(stored[0].name, "Legs");
  assert.equal(stored[0].isDefault, true);
  assert.equal(stored[0].treatmentIds.length, 2);
  await screenshot("modules-02-card");

  // Edit: remove a treatment, add another, untick default.
  await card.getByRole("button", { name: "Edit module Legs" }).click();
  await dlg.getByRole("button", { name: "Remove Zeta relief" }).waitFor();
  assert.equal(await dlg.getByPlaceholder("Enter module name").inputValue(), "Legs");
  assert.deepEqual(await names(), ["Alpha warmup", "Zeta relief"]);
  await dlg.getByRole("button", { name: "Remove Alpha warmup" }).click();
  await pick(dlg, page, "Mid recovery");
  assert.deepEqual(await names(), ["Mid recovery", "Zeta relief"]);
  await dlg.getByLabel("Include as default on product type.").uncheck();
  await save.click();
  await dlg.waitFor({ state: "hidden" });
  await card.getByText("Mid recovery").waitFor();
  await card.getByText("Alpha warmup").waitFor({ state: "detached" });
  assert.equal(await card.getByText("Default", { exact: true }).count(), 0);
  stored = (await api.getProductType(pt._id)).modules;
  assert.equal(stored[0].isDefault, false);
  assert.equal(stored[0].treatmentIds.length, 2);

  // A second, empty module.
  await page.getByRole("button", { name: "Add module" }).click();
  await dlg.getByPlaceholder("Enter module name").fill("Empty one");
  await save.click();
  await moduleCard(page, "Empty one").getByText("No treatments present").waitFor();
  await dlg.waitFor({ state: "hidden" });
  await screenshot("modules-03-two-modules");

  // Delete with confirm: "Keep module" keeps it, "Delete module" removes it.
  await moduleCard(page, "Legs").getByRole("button", { name: "Delete module Legs" }).click();
  await dlg.getByText("Delete module Legs?").waitFor();
  await dlg.getByText("Are you sure you want to delete this module?").waitFor();
  await dlg.getByRole("button", { name: "Keep module" }).click();
  await moduleCard(page, "Legs").waitFor();
  await moduleCard(page, "Legs").getByRole("button", { name: "Delete module Legs" }).click();
  await dlg.getByRole("button", { name: "Delete module", exact: true }).click();
  await moduleCard(page, "Legs").waitFor({ state: "detached" });
  await moduleCard(page, "Empty one").getByRole("button", { name: "Delete module Empty one" }).click();
  await dlg.getByRole("button", { name: "Delete module", exact: true }).click();
  await page.getByText("No modules present. Add one by clicking on the 'Add Module' button above.", { exact: true })
    .waitFor();
  assert.deepEqual((await api.getProductType(pt._id)).modules, []);
  await dlg.waitFor({ state: "hidden" });
  await screenshot("modules-04-none-left");
});
