/**
 * The console tells the truth about the session and the role (issue 34): a viewer's pass through every screen finds
 * no enabled control a viewer cannot use and no Retry for a refusal; a session that ends while a change is being
 * confirmed opens a sign-in dialog over the page and the change is sent after it (or said plainly not to be saved);
 * Escape closes only the innermost layer; the token secret asks before it closes.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { checkInDevices, e2eTest, settled } from "./helpers.ts";

const toast = (page: Page, summary: string) => page.locator(".p-toast-message", { hasText: summary });

/** Buttons that change something: none of them may be enabled for a viewer. */
const WRITE =
  /add|delete|upload|import|create|change selected|default|remove|edit|accept|reject|new rollout|revoke|pause|resume|cancel rollout|promote|retry|save|rename/i;

/** The names of the enabled buttons of the page (outside the menu and the top bar) that would change something. */
function enabledWriteControls(page: Page): Promise<string[]> {
  return page.evaluate((source) => {
    const re = new RegExp(source, "i");
    const main = document.getElementById("main-content")!;
    return [...main.querySelectorAll<HTMLElement>("button, [role=button], input, [role=combobox]")]
      .filter((el) => !(el as HTMLButtonElement).disabled && el.getAttribute("aria-disabled") !== "true")
      .filter((el) => el.offsetParent !== null)
      .map((el) => (el.getAttribute("aria-label") ?? el.textContent ?? "").trim())
      .filter((name) => re.test(name));
  }, WRITE.source);
}

e2eTest("a viewer's pass through every screen: nothing offered the role cannot do, no Retry for a 403", async (c) => {
  const { page, visit, signIn, screenshot, api, srv } = c;
  await checkInDevices(srv, ["view-1", "view-2"]);
  const dir = await Deno.makeTempDir({ prefix: "e2e-viewer-" });
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "viewer-fw.xz")));
  await Deno.remove(dir, { recursive: true });
  const type = await api.createProductType("Walker");
  await api.patchProductType({
    _id: type._id,
    name: "Walker",
    modules: [{ name: "Base", isDefault: false, treatmentIds: [] }],
  });
  const rollout = await api.createRollout({ name: "Spring", firmwareId: fw._id, productTypeId: null });
  await api.createOperator({ email: "viewer@example.com", role: "viewer", password: "viewer-password-1" });

  await visit("/");
  await signIn(page, "viewer@example.com", "viewer-password-1");
  const screens: [string, string][] = [
    ["/", "Overview"],
    ["/devices", "Devices"],
    ["/devices/view-1", "Device view-1"],
    ["/treatments", "Treatments"],
    ["/product_types", "Product types"],
    [`/product_types/${type._id}`, "Product type: Walker"],
    ["/device_firmwares", "Device firmwares"],
    ["/rollouts", "Rollouts"],
    [`/rollouts/${rollout._id}`, "Rollout Spring"],
    ["/api_tokens", "API tokens"],
    ["/release_keys", "Release keys"],
    ["/audit", "Audit log"],
    ["/operators", "Operators"],
  ];
  const found: string[] = [];
  for (const [path, heading] of screens) {
    await visit(path);
    await page.getByRole("heading", { name: heading }).first().waitFor();
    // Why the controls are off: said in words on every page (and the role is known from here on).
    await page.locator("#role-note").getByText("Your role (viewer) can only read").waitFor();
    await settled(page);
    await page.waitForTimeout(200);
    // What a viewer may do: make a read-only API token and keep their own saved views of the devices list.
    const allowed = new Set(["Create token", "Save view", "Saved view"]);
    const enabled = (await enabledWriteControls(page)).filter((n) => !allowed.has(n));
    if (enabled.length) found.push(`${path}: ${enabled.join(", ")}`);
    assert.equal(await page.getByRole("button", { name: "Retry" }).count(), 0, `${path} offers no Retry`);
  }
  assert.deepEqual(found, [], "a viewer finds no enabled control that would change something");
  await visit("/audit");
  await page.getByText("This page needs the operator role; you are signed in as viewer.", { exact: false }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Retry" }).count(), 0);
  await screenshot("roles-01-viewer-audit");

  // The device screen's controls are off; selecting devices works (to look, to export), the bulk change does not
  // open at all, so a viewer never fills one in to be refused at the end.
  await visit("/devices/view-1");
  await page.getByRole("heading", { name: "Device view-1" }).waitFor();
  await settled(page);
  for (const id of ["#device-product-type"]) {
    assert.equal(await page.locator(id).isDisabled(), true, `${id} is disabled for a viewer`);
  }
  await visit("/devices");
  await page.getByRole("heading", { name: "Devices" }).waitFor();
  await settled(page);
  await page.getByRole("checkbox", { name: /view-1/ }).check();
  const bulk = page.getByRole("button", { name: "Change selected…" });
  assert.equal(await bulk.isDisabled(), true);
  assert.equal(await bulk.getAttribute("aria-describedby"), "role-note");
  await screenshot("roles-02-viewer-devices");
});

e2eTest(
  "a session ended mid-change: sign in over the page, the change is sent; a lost role says 'Not saved'",
  async (c) => {
    const { page, visit, signIn, screenshot, api } = c;
    const type = await api.createProductType("Walker");
    const dir = await Deno.makeTempDir({ prefix: "e2e-session-" });
    await api.uploadFirmware(await fileSource(await makeXzFile(dir, "session-fw.xz")));
    await Deno.remove(dir, { recursive: true });
    const olga = await api.createOperator({ email: "olga@example.com", role: "operator", password: "olga-pass-1" });

    await visit("/rollouts");
    await signIn(page, "olga@example.com", "olga-pass-1");
    await page.getByRole("heading", { name: "Rollouts" }).waitFor();
    await settled(page);

    // Escape in an open dropdown closes the dropdown only: the New rollout dialog keeps what was entered.
    await page.getByRole("button", { name: "New rollout" }).click();
    const dlg = page.getByRole("dialog");
    await dlg.getByLabel("Name").fill("Night shift");
    await dlg.locator(".p-dropdown").first().click();
    await page.locator(".p-dropdown-panel").waitFor();
    await page.keyboard.press("Escape");
    await page.locator(".p-dropdown-panel").waitFor({ state: "detached" });
    await page.waitForTimeout(300);
    assert.equal(await dlg.isVisible(), true, "the dialog stays");
    assert.equal(await dlg.getByLabel("Name").inputValue(), "Night shift");
    await page.keyboard.press("Escape");
    await dlg.waitFor({ state: "hidden" });

    // A module is being added when an admin resets Olga's password: her session ends at once.
    await visit(`/product_types/${type._id}`);
    await page.getByRole("heading", { name: "Product type: Walker" }).waitFor();
    await settled(page);
    await page.getByRole("button", { name: "Add module" }).click();
    const moduleDialog = page.getByRole("dialog", { name: "Edit module" });
    await moduleDialog.getByPlaceholder("Enter module name").fill("Night pack");
    await api.resetOperatorPassword(olga._id, "olga-pass-2");
    await moduleDialog.getByRole("button", { name: "Save" }).click();

    // No jump to the sign-in page: a dialog over the page, the module dialog still there with her input.
    const again = page.getByRole("dialog", { name: "Sign in again" });
    await again.getByText("olga@example.com").waitFor();
    assert.equal(await moduleDialog.getByPlaceholder("Enter module name").inputValue(), "Night pack");
    assert.equal(await page.getByRole("heading", { name: "Product type: Walker" }).count(), 1);
    await screenshot("session-01-sign-in-over-the-page");
    // Escape belongs to the sign-in dialog on top (which stays): the module dialog under it keeps its input.
    await again.getByLabel("Password").focus();
    await page.keyboard.press("Escape");
    await page.waitForTimeout(300);
    assert.equal(await again.isVisible(), true);
    assert.equal(await moduleDialog.isVisible(), true, "the dialog under the sign-in stays");
    await again.getByLabel("Password").fill("wrong-password");
    await again.getByRole("button", { name: "Sign in" }).click();
    await again.getByText("Invalid email address or password.").waitFor();
    await again.getByLabel("Password").fill("olga-pass-2");
    await again.getByRole("button", { name: "Sign in" }).click();
    await again.waitFor({ state: "detached" });
    // The confirmed change went through after signing in.
    await toast(page, "Module saved").waitFor();
    await moduleDialog.waitFor({ state: "hidden" });
    assert.deepEqual((await api.getProductType(type._id)).modules.map((m) => m.name), ["Night pack"]);

    // Demoted to viewer meanwhile: after signing in again, the rename is refused and said plainly not to be saved.
    await page.waitForFunction(() => !document.querySelector(".p-toast-message"), undefined, { timeout: 10_000 });
    await page.getByRole("button", { name: "Edit product type name" }).click();
    const rename = page.getByRole("dialog", { name: "Edit product type name" });
    await rename.getByPlaceholder("Enter product type name").fill("Walker Pro");
    await api.patchOperator(olga._id, { role: "viewer" });
    await rename.getByRole("button", { name: "OK" }).click();
    await again.getByLabel("Password").fill("olga-pass-2");
    await again.getByRole("button", { name: "Sign in" }).click();
    await toast(page, "Not saved").getByText(/Not saved: This needs the operator role; you are signed in as viewer/)
      .waitFor();
    await screenshot("session-02-not-saved");
    assert.equal((await api.getProductType(type._id)).name, "Walker");
    // The page now knows the role: its change controls are off and say why.
    await page.locator("#role-note").waitFor();
  },
);

e2eTest("Escape in a dropdown keeps the Create token dialog; the secret asks before it closes", async (c) => {
  const { page, visit, signIn, screenshot } = c;
  await visit("/api_tokens");
  await signIn();
  await page.getByRole("heading", { name: "API tokens" }).waitFor();
  await page.getByRole("button", { name: "Create token" }).click();
  const dlg = page.getByRole("dialog");
  await dlg.getByLabel("Name").fill("CI uploads");
  await dlg.locator(".p-dropdown").click();
  await page.locator(".p-dropdown-panel").waitFor();
  await page.keyboard.press("Escape");
  await page.locator(".p-dropdown-panel").waitFor({ state: "detached" });
  await page.waitForTimeout(300);
  assert.equal(await dlg.getByLabel("Name").inputValue(), "CI uploads", "the dialog and its input stay");

  await dlg.getByRole("button", { name: "Create", exact: true }).click();
  await dlg.getByText("you will not see it again").waitFor();
  // Escape, the close icon and Done each ask first.
  for (const close of ["Escape", "icon", "Done"] as const) {
    if (close === "Escape") await page.keyboard.press("Escape");
    else if (close === "icon") await dlg.locator(".p-dialog-header-close").click();
    else await dlg.getByRole("button", { name: "Done" }).click();
    await dlg.getByText("Did you copy the token? Once closed, it cannot be shown again.").waitFor();
    if (close !== "Done") {
      await dlg.getByRole("button", { name: "Back to the token" }).click();
      await dlg.getByText("Did you copy the token?").waitFor({ state: "detached" });
    }
  }
  await screenshot("tokens-secret-asks");
  await dlg.getByRole("button", { name: "Close, I copied it" }).click();
  await dlg.waitFor({ state: "hidden" });
});
