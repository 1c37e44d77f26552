/**
 * Saved views on the server, in Chromium (docs/DECISIONS.md, "Saved views and preferences per operator"): the views
 * this browser kept before are moved to the account once; a view saved and shared here is found from a fresh browser
 * by its owner and by another operator, opens its list, and is deleted behind a confirmation; the column choice
 * follows the operator to a fresh browser; axe finds nothing.
 */
import assert from "node:assert/strict";
import { assertAccessible } from "./a11y.ts";
import { ADMIN_EMAIL, assertEventually, checkInDevices, e2eTest, launchBrowser } from "./helpers.ts";

const older = Array.from({ length: 6 }, (_, i) => `sv-old-${i}`);
const newer = Array.from({ length: 4 }, (_, i) => `sv-new-${i}`);

e2eTest("saved views: kept on the server, shared, found from a fresh browser, deleted with a confirm", async (c) => {
  const { page, visit, signIn, screenshot, srv, api } = c;
  await checkInDevices(srv, older, { app: "1.0.0", os: "Linux", channels: [] });
  await checkInDevices(srv, newer, { app: "2.0.0", os: "Linux", channels: [] });
  await api.createOperator({ email: "ann@example.com", password: "ann-pass-1234", role: "operator" });

  // A view saved in this browser before views moved to the server.
  await visit("/");
  await page.evaluate(
    (who) => localStorage.setItem(`deviceViews:${who}`, JSON.stringify([{ name: "Old local", query: "?app=1.0.0" }])),
    ADMIN_EMAIL,
  );
  await visit("/devices");
  await signIn();
  await page.getByText("10 devices", { exact: true }).waitFor();
  await page.getByText("1 view saved in this browser now follow you.").waitFor();
  await page.waitForTimeout(350); // the toast's entry animation ends before axe measures colours
  assert.deepEqual((await api.listSavedViews()).map((v) => [v.name, v.query]), [["Old local", { app: "1.0.0" }]]);
  assert.equal(await page.evaluate((who) => localStorage.getItem(`deviceViews:${who}`), ADMIN_EMAIL), null);

  // Save the current view, shared.
  await page.locator("#filter-app").selectOption("2.0.0");
  await page.waitForURL(/app=2\.0\.0/);
  await page.getByText("4 devices match").waitFor();
  await page.getByRole("button", { name: "Save view" }).click();
  await page.getByLabel("View name").fill("Version two");
  await page.getByRole("checkbox", { name: "Shared" }).check();
  await assertAccessible(page, "save view form");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Version two (shared with every operator)").waitFor();
  await assertEventually(async () =>
    assert.equal(await page.getByLabel("Saved view").locator("option:checked").textContent(), "Version two (shared)")
  );
  // One's own name again asks before replacing that view (Cancel keeps it).
  await page.getByRole("button", { name: "Save view" }).click();
  await page.getByLabel("View name").fill("version TWO");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const ask = page.getByRole("dialog");
  await ask.getByText("Replace saved view Version two?").waitFor();
  await ask.getByRole("button", { name: "Cancel" }).click();
  await ask.waitFor({ state: "hidden" });
  // A name taken meanwhile from another browser: refused, with the server's words in a toast.
  await api.createSavedView({ name: "Made elsewhere", query: {} });
  await page.getByLabel("View name").fill("made ELSEWHERE");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText('you already have a saved view named "made ELSEWHERE"').waitFor();
  await page.getByRole("button", { name: "Cancel" }).click();

  // The column choice is kept on the server too.
  await page.getByRole("button", { name: "Columns" }).click();
  await page.getByRole("checkbox", { name: "App version" }).check();
  await page.locator("th", { hasText: "App version" }).waitFor();
  await assertEventually(async () =>
    assert.deepEqual((await api.getPreferences()).deviceColumns?.includes("app"), true)
  );

  // A fresh browser: the owner finds both views and the columns, and opens one.
  const fresh = await launchBrowser();
  try {
    const p2 = fresh.pages()[0] ?? await fresh.newPage();
    p2.setDefaultTimeout(15_000);
    await visit("/devices", p2);
    await signIn(p2);
    await p2.getByText("10 devices", { exact: true }).waitFor();
    await p2.locator("th", { hasText: "App version" }).waitFor();
    const menu = p2.getByLabel("Saved view");
    await menu.locator("option", { hasText: "Version two (shared)" }).waitFor({ state: "attached" });
    await menu.selectOption({ label: "Old local" });
    await p2.waitForURL(/app=1\.0\.0/);
    await p2.getByText("6 devices match").waitFor();
    await screenshot("saved-views-01-fresh-browser", p2);
  } finally {
    await fresh.close();
  }

  // Another operator, in a fresh browser: the shared view is there, marked, opens, and cannot be changed by them.
  const other = await launchBrowser();
  try {
    const p3 = other.pages()[0] ?? await other.newPage();
    p3.setDefaultTimeout(15_000);
    await visit("/devices", p3);
    await signIn(p3, "ann@example.com", "ann-pass-1234");
    await p3.getByText("10 devices", { exact: true }).waitFor();
    const menu = p3.getByLabel("Saved view");
    await menu.locator("option", { hasText: `Version two (shared by ${ADMIN_EMAIL})` }).waitFor({ state: "attached" });
    assert.equal(await menu.locator("option", { hasText: "Old local" }).count(), 0, "private views stay private");
    await menu.selectOption({ label: `Version two (shared by ${ADMIN_EMAIL})` });
    await p3.waitForURL(/app=2\.0\.0/);
    await p3.getByText("4 devices match").waitFor();
    await p3.getByText(`Shared by ${ADMIN_EMAIL}`, { exact: true }).waitFor();
    assert.equal(await p3.getByRole("button", { name: "Delete view" }).count(), 0);
    assert.equal(await p3.getByRole("button", { name: /share view/i }).count(), 0);
    await assertAccessible(p3, "devices list with a view shared by another operator");
  } finally {
    await other.close();
  }

  // Replace one's own view with the current filters, after a confirmation.
  await page.reload();
  await page.getByText("4 devices match").waitFor();
  await page.getByRole("button", { name: "Save view" }).click();
  await page.getByLabel("View name").fill("Old local");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByRole("dialog").getByText("Old local will show the current filters and sort instead of its own.")
    .waitFor();
  await page.getByRole("dialog").getByRole("button", { name: "OK" }).click();
  await page.getByText("View replaced").waitFor();
  await assertEventually(async () =>
    assert.deepEqual(
      (await api.listSavedViews()).find((v) => v.name === "Old local")?.query,
      { app: "2.0.0" },
    )
  );

  // Delete behind a confirmation (focus on Cancel); gone for everyone.
  await page.getByLabel("Saved view").selectOption({ label: "Version two (shared)" });
  await page.getByRole("button", { name: "Delete view" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("Delete saved view Version two?").waitFor();
  await dialog.getByText("gone for you and for every operator it was shared with").waitFor();
  await page.waitForTimeout(350);
  await assertAccessible(page, "delete saved view confirmation");
  await dialog.getByRole("button", { name: "OK" }).click();
  await page.getByText("View deleted").waitFor();
  assert.deepEqual((await api.listSavedViews()).map((v) => v.name), ["Made elsewhere", "Old local"]);
  assert.equal(await page.getByLabel("Saved view").locator("option", { hasText: "Version two" }).count(), 0);
});

e2eTest(
  "saved views: rename one's own view in a dialog fetched when used; a taken name is refused in place",
  async (c) => {
    const { page, visit, signIn, screenshot, srv, api } = c;
    await checkInDevices(srv, newer, { app: "2.0.0", os: "Linux", channels: [] });
    await checkInDevices(srv, older, { app: "1.0.0", os: "Linux", channels: [] });
    await api.createSavedView({ name: "Version two", query: { app: "2.0.0" } });
    await api.createSavedView({ name: "Old ones", query: { app: "1.0.0" }, shared: true });
    await api.createOperator({ email: "ann@example.com", password: "ann-pass-1234", role: "operator" });
    const ann = await srv.login("ann@example.com", "ann-pass-1234");
    await ann.createSavedView({ name: "Ann's", query: { q: "sv-old" }, shared: true });
    const scripts: string[] = [];
    page.on("request", (req) => {
      if (req.resourceType() === "script") scripts.push(new URL(req.url()).pathname);
    });
    const renameChunk = () => scripts.filter((s) => /\/RenameViewDialog-[^/]+\.js$/.test(s));

    await visit("/devices?app=2.0.0");
    await signIn();
    await page.getByText("4 devices match").waitFor();
    const menu = page.getByLabel("Saved view");
    await assertEventually(async () => assert.equal(await menu.locator("option:checked").textContent(), "Version two"));
    assert.deepEqual(renameChunk(), [], "the rename dialog's code waits until it is asked for");

    // Rename: the dialog opens on the current name; Enter saves; the menu shows the new name at once.
    await page.getByRole("button", { name: "Rename view…" }).click();
    const dialog = page.getByRole("dialog", { name: "Rename saved view Version two" });
    const name = dialog.getByLabel("Name", { exact: true });
    await name.waitFor();
    assert.equal(await name.inputValue(), "Version two");
    assert.equal(renameChunk().length, 1);
    await assertEventually(async () => assert.equal(await name.evaluate((el) => el === document.activeElement), true));
    await page.waitForTimeout(350); // the dialog's entry animation ends before axe measures colours
    await assertAccessible(page, "rename saved view dialog");
    await name.fill("Second version");
    await name.press("Enter");
    await page.getByText("Version two is now Second version.").waitFor();
    await dialog.waitFor({ state: "hidden" });
    await assertEventually(async () =>
      assert.equal(await menu.locator("option:checked").textContent(), "Second version")
    );
    await assertEventually(async () =>
      assert.equal(await page.evaluate(() => document.activeElement?.id), "rename-view", "focus is back")
    );
    assert.equal(await menu.locator("option", { hasText: "Version two" }).count(), 0);
    assert.deepEqual((await api.listSavedViews()).map((v) => [v.name, v.query]), [
      ["Ann's", { q: "sv-old" }],
      ["Old ones", { app: "1.0.0" }],
      ["Second version", { app: "2.0.0" }],
    ]);

    // A name one already uses (ignoring case) is refused by the server: the reason shows under the field, which keeps
    // the name typed, and nothing changes.
    await page.getByRole("button", { name: "Rename view…" }).click();
    const again = page.getByRole("dialog", { name: "Rename saved view Second version" });
    await again.getByLabel("Name", { exact: true }).fill("old ONES");
    await again.getByRole("button", { name: "Rename" }).click();
    const refusal = again.getByText('you already have a saved view named "old ONES"');
    await refusal.waitFor();
    assert.equal(await again.getByLabel("Name", { exact: true }).getAttribute("aria-invalid"), "true");
    assert.equal(
      await again.getByLabel("Name", { exact: true }).getAttribute("aria-describedby"),
      await refusal.getAttribute("id"),
    );
    await screenshot("saved-views-02-rename-refused");
    await assertAccessible(page, "rename saved view dialog with a refused name");
    await page.keyboard.press("Escape");
    await again.waitFor({ state: "hidden" });
    await assertEventually(async () =>
      assert.equal(await page.evaluate(() => document.activeElement?.id), "rename-view", "focus is back")
    );
    assert.deepEqual((await api.listSavedViews()).map((v) => v.name), ["Ann's", "Old ones", "Second version"]);

    // One's own shared view can be renamed; another operator's shared view cannot.
    await menu.selectOption({ label: "Old ones (shared)" });
    await page.getByText("6 devices match").waitFor();
    assert.equal(await page.getByRole("button", { name: "Rename view…" }).count(), 1);
    await menu.selectOption({ label: "Ann's (shared by ann@example.com)" });
    await page.getByText("Shared by ann@example.com", { exact: true }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Rename view…" }).count(), 0);
  },
);
