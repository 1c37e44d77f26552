import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ADMIN_EMAIL, ADMIN_PASSWORD, e2eTest } from "./helpers.ts";

/** Opens Account → Change password and waits for its dialog. */
async function openChangePassword(page: Page) {
  await page.getByRole("button", { name: "Account" }).click();
  await page.locator("#account-menu").getByText("Change password").click();
  const dialog = page.getByRole("dialog", { name: "Change password" });
  await dialog.waitFor();
  return dialog;
}

e2eTest("sign in, bad credentials, validation, sign out", async ({ page, visit, signIn, screenshot }) => {
  await visit("/");
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await screenshot("auth-01-login");

  // Validation messages, nothing sent.
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("Please enter a valid email address.").waitFor();
  await page.getByText("Please enter your password.").waitFor();
  await screenshot("auth-02-login-validation");

  // Any failure shows one sentence.
  await page.getByLabel("E-mail").fill(ADMIN_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill("wrong-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("Invalid email address or password.").waitFor();
  await screenshot("auth-03-login-failed");
  assert.equal(await page.evaluate(() => localStorage.getItem("accessToken")), null);

  await signIn();
  const token = await page.evaluate(() => localStorage.getItem("accessToken"));
  assert.ok(token, "the token is stored under accessToken");
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  await screenshot("auth-04-signed-in");

  // The token survives a reload.
  await page.reload();
  await page.getByRole("heading", { name: "Overview" }).waitFor();

  // Account menu: identity (disabled), Change password, Logout.
  await page.getByRole("button", { name: "Account" }).click();
  const menu = page.locator("#account-menu");
  await menu.getByText(ADMIN_EMAIL).waitFor();
  assert.equal(await menu.locator('li[data-p-disabled="true"]', { hasText: ADMIN_EMAIL }).count(), 1);
  await menu.getByText("Change password").waitFor();
  await screenshot("auth-05-account-menu");
  await menu.getByText("Logout").click();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem("accessToken")), null);

  // The known-browser mark (docs/REQUIREMENTS.md §19): kept by the browser, out of the page's reach, sent with the next sign-in.
  const marks = (await page.context().cookies()).filter((c) => c.name.startsWith("tdc_kb_"));
  assert.deepEqual(marks.map((c) => [c.httpOnly, c.sameSite, c.path]), [[true, "Strict", "/api/v1/login"]]);
  assert.equal(await page.evaluate(() => document.cookie.includes("tdc_kb_")), false);
  const next = page.waitForRequest((r) => r.url().endsWith("/api/v1/login"));
  await signIn();
  assert.match((await (await next).allHeaders()).cookie ?? "", /tdc_kb_[\w-]+=v1\./);
});

e2eTest("an expired token returns to the sign-in form; a refused one asks to sign in over the page", async (c) => {
  const { page, visit, signIn, srv } = c;
  // A stored token that has expired is not a session.
  await visit("/");
  const header = btoa(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const past = btoa(JSON.stringify({ sub: ADMIN_EMAIL, iat: 1, exp: 2 }));
  await page.evaluate((t) => localStorage.setItem("accessToken", t), `${header}.${past}.sig`);
  await page.reload();
  await page.getByRole("button", { name: "Sign in" }).waitFor();

  // A token the server refuses (401): the page stays and a dialog asks the same person to sign in again; signing out
  // there returns to the sign-in form.
  const future = btoa(JSON.stringify({ sub: ADMIN_EMAIL, iat: 1, exp: 4_000_000_000 }));
  await page.evaluate((t) => localStorage.setItem("accessToken", t), `${header}.${future}.forged`);
  await page.goto(`${srv.url}/devices`);
  const again = page.getByRole("dialog", { name: "Sign in again" });
  await again.getByText(ADMIN_EMAIL).waitFor();
  await page.getByRole("heading", { name: "Devices" }).waitFor();
  await again.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("E-mail").waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem("accessToken")), null);

  // Signing in on a deep link lands on that screen.
  await signIn();
  await page.getByRole("heading", { name: "Devices" }).waitFor();
});

e2eTest("change password keeps the operator signed in", async ({ page, visit, signIn, screenshot, srv }) => {
  await visit("/");
  await signIn();
  const dialog = await openChangePassword(page);
  const save = dialog.getByRole("button", { name: "Save" });
  assert.equal(await save.isDisabled(), true);

  // Wrong current password: the server's msg under the alert title.
  await dialog.getByLabel("Current password").fill("not-the-password");
  await dialog.getByLabel("New password", { exact: true }).fill("brand-new-password");
  await dialog.getByLabel("New password (confirmation)").fill("brand-new-passwor");
  assert.equal(await save.isDisabled(), true);
  await dialog.getByLabel("New password (confirmation)").fill("brand-new-password");
  await save.click();
  await dialog.getByText("Error changing password").waitFor();
  await dialog.getByText("Current password is incorrect.").waitFor();
  await screenshot("auth-06-change-password-error");

  await dialog.getByLabel("Current password").fill(ADMIN_PASSWORD);
  await save.click();
  await dialog.waitFor({ state: "hidden" });
  // Still signed in with a fresh token: a call after the change succeeds.
  await page.getByRole("link", { name: "Devices" }).first().click();
  await page.getByRole("heading", { name: "Devices" }).waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.getByRole("button", { name: "Sign in" }).count(), 0);
  await screenshot("auth-07-after-change");
  // The new password works for the API, the old one no longer.
  await srv.login(ADMIN_EMAIL, "brand-new-password");
  await assert.rejects(srv.login(ADMIN_EMAIL, ADMIN_PASSWORD));
});

e2eTest("Escape closes a dialog and focus stays inside it", async ({ page, visit, signIn }) => {
  await visit("/");
  await signIn();
  const dialog = await openChangePassword(page);
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Tab");
    assert.ok(
      await dialog.evaluate((el) => el.contains(document.activeElement)),
      `focus left the dialog after ${i + 1} Tab`,
    );
  }
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });
});
