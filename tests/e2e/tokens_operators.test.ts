/**
 * API tokens, operators and role-aware controls in the browser (docs/REQUIREMENTS.md §12): a token made in the console is shown
 * once with a copy button, works, shows when it was last used, and dies when revoked behind a confirmation; an admin
 * manages operators and sees the server's refusals; a viewer gets no control it may not use. axe finds nothing on any
 * of these screens or dialogs.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { assertAccessible } from "./a11y.ts";
import { ADMIN_EMAIL, checkInDevices, e2eTest, importTreatments, pick, settled, treatment } from "./helpers.ts";

const toast = (page: Page, summary: string) => page.locator(".p-toast-message", { hasText: summary });

async function axe(page: Page, where: string) {
  await settled(page);
  await page.waitForTimeout(350);
  await assertAccessible(page, where);
}

e2eTest("API tokens: create with scopes and expiry, copy the secret once, last used, revoke", async (c) => {
  const { page, visit, signIn, screenshot, srv, browser } = c;
  await browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: srv.url });
  await visit("/api_tokens");
  await signIn();
  await page.getByRole("heading", { name: "API tokens" }).waitFor();
  await page.getByText("No API tokens yet").waitFor();
  await axe(page, "API tokens page");

  await page.getByRole("button", { name: "Create token" }).click();
  const dlg = page.getByRole("dialog");
  await dlg.getByText("Create API token").waitFor();
  const create = dlg.getByRole("button", { name: "Create", exact: true });
  assert.equal(await create.isDisabled(), true, "no name yet");
  await dlg.getByLabel("Name").fill("Nightly build");
  await dlg.getByLabel(/^devices:write/).check();
  await pick(page, dlg.locator(".p-dropdown"), "In 30 days");
  await axe(page, "create token dialog");
  await create.click();

  await dlg.getByText("you will not see it again").waitFor();
  const secret = await dlg.getByLabel("Token").inputValue();
  assert.match(secret, /^tdc_[A-Za-z0-9_-]{43}$/);
  await dlg.getByText("API token Nightly build created").waitFor();
  await axe(page, "token secret shown once");
  await screenshot("tokens-01-secret");
  await dlg.getByRole("button", { name: "Copy" }).click();
  await dlg.getByRole("status").getByText("Copied to the clipboard.").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  // Closing the secret asks first (Done, the close icon and Escape alike); Escape while asking goes back to it.
  await dlg.getByRole("button", { name: "Done" }).click();
  await dlg.getByText("Did you keep the copied token somewhere safe?").waitFor();
  await page.keyboard.press("Escape");
  await dlg.getByText("Did you keep the copied token somewhere safe?").waitFor({ state: "detached" });
  assert.equal(await dlg.getByLabel("Token").inputValue(), secret, "the secret is still shown");
  await page.keyboard.press("Escape");
  await dlg.getByRole("button", { name: "Close, I copied it" }).click();
  await dlg.waitFor({ state: "hidden" });

  const row = page.getByRole("row", { name: /Nightly build/ });
  await row.getByText("read, devices:write").waitFor();
  assert.match(await row.textContent() ?? "", /Never$|NeverRevoke/, "not used yet");
  // The secret works as a bearer; the list then shows when.
  const used = await fetch(`${srv.url}/api/v1/devices`, { headers: { Authorization: `Bearer ${secret}` } });
  assert.equal(used.status, 200);
  await used.body?.cancel();
  await page.reload();
  await page.getByRole("row", { name: /Nightly build/ }).waitFor();
  assert.doesNotMatch(await page.getByRole("row", { name: /Nightly build/ }).textContent() ?? "", /NeverRevoke/);
  await screenshot("tokens-02-list");

  await page.getByRole("button", { name: "Revoke Nightly build" }).click();
  await dlg.getByText("Revoke API token Nightly build?").waitFor();
  await axe(page, "revoke confirmation");
  await dlg.getByRole("button", { name: "OK" }).click();
  await toast(page, "API token revoked").waitFor();
  await page.getByText("No API tokens yet").waitFor();
  const after = await fetch(`${srv.url}/api/v1/devices`, { headers: { Authorization: `Bearer ${secret}` } });
  assert.equal(after.status, 401);
  await after.body?.cancel();
});

e2eTest("Operators: add, change role, disable and enable, reset password, the server's 409", async (c) => {
  const { page, visit, signIn, screenshot, api } = c;
  await visit("/operators");
  await signIn();
  await page.getByRole("heading", { name: "Operators (1)" }).waitFor();
  await axe(page, "operators page");

  await page.getByRole("button", { name: "Add operator" }).click();
  const dlg = page.getByRole("dialog");
  await dlg.getByLabel("E-mail").fill("vera@example.com");
  await pick(page, dlg.locator(".p-dropdown"), "Viewer");
  await dlg.getByLabel("First password").fill("vera-pass-1");
  await axe(page, "add operator dialog");
  await dlg.getByRole("button", { name: "Add", exact: true }).click();
  await toast(page, "Operator added").waitFor();
  await page.getByRole("heading", { name: "Operators (2)" }).waitFor();

  // A role change is confirmed; a promotion keeps the person signed in, a demotion says it signs them out.
  await pick(page, page.getByRole("row", { name: /vera@example.com/ }).locator(".p-dropdown"), "Operator");
  await dlg.getByText("Change the role of vera@example.com to operator?").waitFor();
  await dlg.getByText("vera@example.com stays signed in", { exact: false }).waitFor();
  await dlg.getByRole("button", { name: "OK" }).click();
  await toast(page, "Role changed").waitFor();
  assert.equal((await api.listOperators()).find((o) => o.email === "vera@example.com")?.role, "operator");

  await page.getByRole("button", { name: "Disable vera@example.com" }).click();
  await dlg.getByText("Disable vera@example.com?").waitFor();
  await dlg.getByRole("button", { name: "OK" }).click();
  await toast(page, "Operator disabled").waitFor();
  await page.getByRole("row", { name: /vera@example.com/ }).getByText("Disabled").waitFor();
  await page.getByRole("button", { name: "Enable vera@example.com" }).click();
  await dlg.getByRole("button", { name: "OK" }).click();
  await toast(page, "Operator enabled").waitFor();

  // The toasts so far have gone (a toast under a modal's mask is dimmed below axe's contrast).
  await page.waitForFunction(() => !document.querySelector(".p-toast-message"), undefined, { timeout: 10_000 });
  await page.getByRole("button", { name: "Reset password of vera@example.com" }).click();
  await dlg.getByLabel("New password").fill("vera-pass-2");
  await axe(page, "reset password dialog");
  await dlg.getByRole("button", { name: "Reset", exact: true }).click();
  await toast(page, "Password reset").waitFor();
  await c.srv.login("vera@example.com", "vera-pass-2");

  // The last active admin cannot demote themself: the server's msg is shown, the role stays.
  await pick(page, page.getByRole("row", { name: new RegExp(ADMIN_EMAIL) }).locator(".p-dropdown"), "Viewer");
  await dlg.getByText(`${ADMIN_EMAIL} is signed out at once`, { exact: false }).waitFor();
  await dlg.getByRole("button", { name: "OK" }).click();
  await toast(page, "Error").getByText(/last active admin/).waitFor();
  await screenshot("operators-01-last-admin");
  assert.equal((await api.me()).role, "admin");
});

e2eTest("a viewer: no Operators entry, write controls disabled or hidden, read-only token scopes", async (c) => {
  const { page, visit, signIn, screenshot, api, srv } = c;
  await checkInDevices(srv, ["view-01"]);
  await importTreatments(api, [treatment("Knee pain", 2)]);
  const type = await api.createProductType("Walker");
  await api.patchProductType({
    _id: type._id,
    name: type.name,
    modules: [{ name: "Base", isDefault: false, treatmentIds: [] }],
  });
  const dir = await Deno.makeTempDir();
  await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-1.xz")));
  await Deno.remove(dir, { recursive: true });
  await api.createOperator({ email: "viewer@example.com", role: "viewer", password: "viewer-pass-1" });

  await visit("/device_firmwares");
  await signIn(page, "viewer@example.com", "viewer-pass-1");
  await page.getByRole("heading", { name: "Device firmwares" }).waitFor();
  await page.getByLabel("Firmware fw-1.xz", { exact: true }).waitFor();
  await page.getByRole("link", { name: "API tokens" }).waitFor();
  assert.equal(await page.getByRole("link", { name: "Operators" }).count(), 0);
  assert.equal(await page.getByRole("link", { name: "Audit log" }).count(), 0, "GET audit is for operators and admins");
  assert.equal(await page.getByRole("button", { name: "Upload firmware" }).isDisabled(), true);
  assert.equal(await page.getByRole("button", { name: "Set as default firmware" }).isDisabled(), true);
  assert.equal(await page.getByRole("button", { name: "Delete firmware fw-1.xz" }).count(), 0);
  await screenshot("viewer-01-firmwares");

  await visit("/treatments");
  await page.getByRole("heading", { name: "Treatments (1/1)" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Import treatments" }).isDisabled(), true);

  await visit("/rollouts");
  await page.getByRole("heading", { name: "Rollouts" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "New rollout" }).isDisabled(), true);

  await visit("/product_types");
  await page.getByRole("heading", { name: "Product types (1)" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Add product type" }).isDisabled(), true);
  await visit(`/product_types/${type._id}`);
  await page.getByRole("heading", { name: "Product type: Walker" }).waitFor();
  await page.getByLabel("Module Base").waitFor();
  assert.equal(await page.getByRole("button", { name: "Add module" }).isDisabled(), true);
  assert.equal(await page.getByRole("button", { name: "Delete", exact: true }).isDisabled(), true);
  assert.equal(await page.getByRole("button", { name: "Edit module Base" }).count(), 0);

  await visit("/devices/view-01");
  await page.getByRole("heading", { name: "Device view-01" }).waitFor();
  await settled(page);
  assert.equal(await page.getByRole("button", { name: "Add treatment" }).isDisabled(), true);
  assert.equal(await page.locator("#device-product-type, main .p-dropdown.p-disabled").count() > 0, true);

  await visit("/operators");
  await page.getByText("This page needs the admin role; you are signed in as viewer.", { exact: false }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Retry" }).count(), 0);

  await visit("/api_tokens");
  await page.getByRole("heading", { name: "API tokens" }).waitFor();
  await page.getByRole("button", { name: "Create token" }).click();
  const dlg = page.getByRole("dialog");
  await dlg.getByLabel(/^read/).waitFor();
  assert.equal(await dlg.getByLabel(/^read/).isChecked(), true);
  assert.equal(await dlg.getByLabel(/^firmware:write/).isDisabled(), true);
  await dlg.getByText(/beyond your role/).first().waitFor();
  await axe(page, "viewer's create token dialog");
});
