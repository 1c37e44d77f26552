import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { type ImportTreatment, makeImportDb } from "../../testing/import_db.ts";
import { encodePng } from "../../testing/import_db.ts";
import { e2eTest, importTreatments } from "./helpers.ts";

const channel = (current: number) => ({
  current,
  frequency: 80,
  polarity: "biphasic",
  riseTime: 100,
  holdTime: 1000,
  fallTime: 150,
});

function png(r: number, g: number, b: number): Uint8Array {
  const rgb = new Uint8Array(40 * 30 * 3);
  for (let i = 0; i < rgb.length; i += 3) rgb.set([r, g, b], i);
  return encodePng(40, 30, rgb);
}

/** 3 phases, the widest with 3 channels, and 2 images. */
const knee: ImportTreatment = {
  name: "Knee pain",
  category: "Pain",
  use: "Twice a day",
  phases: [
    { duration: 30, channels: [channel(5)] },
    { duration: 120, channels: [channel(12), channel(14), channel(16)] },
    { duration: 45, channels: [channel(8), channel(9)] },
  ],
  images: [{ mimeType: "image/png", data: png(7, 134, 134) }, { mimeType: "image/png", data: png(200, 80, 40) }],
};
const back: ImportTreatment = {
  name: "Back relief",
  category: "Pain",
  phases: [{ duration: 60, channels: [channel(10), channel(10)] }],
};
const sleep: ImportTreatment = {
  name: "Sleep aid",
  category: null,
  phases: [{ duration: 600, channels: [channel(2)] }],
};

const heading = (page: Page, name: string) => page.getByRole("heading", { name, exact: true });

e2eTest("treatments list: counts, search and the detail grid with images", async (c) => {
  const { page, visit, signIn, screenshot, api } = c;
  await importTreatments(api, [knee, back, sleep]);
  await visit("/treatments");
  await signIn();
  await heading(page, "Treatments (3/3)").waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute("placeholder") === "Search on name");
  await page.getByRole("button", { name: "Import treatments" }).waitFor();

  const headers = await page.locator(".p-datatable-thead th").allTextContents();
  assert.deepEqual(headers, ["Name", "Channels", "Phases", "Images", "Category", "Updated"]);
  const kneeRow = page.getByRole("row", { name: /Knee pain/ });
  const cells = await kneeRow.locator("td").allTextContents();
  assert.deepEqual(cells.slice(0, 5), ["Knee pain", "3", "3", "2", "Pain"]);
  assert.match(cells[5], /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s?[AP]M UTC$/, "medium date, short time, zone");
  assert.deepEqual(
    await page.locator(".p-datatable-tbody tr td:first-child").allTextContents(),
    ["Back relief", "Knee pain", "Sleep aid"],
  );
  await screenshot("treatments-01-list");

  // Case-insensitive substring, surrounding spaces ignored.
  await page.keyboard.type("  PAIN ");
  await heading(page, "Treatments (1/3)").waitFor();
  await page.getByPlaceholder("Search on name").fill("e");
  await heading(page, "Treatments (3/3)").waitFor();
  await page.getByPlaceholder("Search on name").fill(" knee");
  await heading(page, "Treatments (1/3)").waitFor();
  await screenshot("treatments-02-search");

  // Row click opens the detail.
  await kneeRow.locator("td").nth(2).click();
  await page.waitForURL(/\/treatments\/[^/]+$/);
  await heading(page, "Treatment: Knee pain").waitFor();
  const info = await page.locator("table.info-table tr").allTextContents();
  assert.deepEqual(info.slice(0, 3), ["NameKnee pain", "CategoryPain", "UseTwice a day"]);
  assert.match(info[3], /^Created at\w{3} \d/);
  assert.match(info[4], /^Updated at\w{3} \d/);

  const grid = page.getByLabel("Phases");
  await grid.waitFor();
  const groupHeaders = await page.locator(".p-datatable-thead tr").first().locator("th").allTextContents();
  assert.deepEqual(groupHeaders, ["#", "Duration(s)", "Channel 1", "Channel 2", "Channel 3"]);
  const subHeaders = await page.locator(".p-datatable-thead tr").nth(1).locator("th").allTextContents();
  assert.deepEqual(
    subHeaders,
    Array(3).fill(["Current(mA)", "Freq(Hz)", "Pol", "tRise(ms)", "tHold(ms)", "tFall(ms)"]).flat(),
    "the specification's headers, each with its unit",
  );
  const rows = page.locator(".p-datatable-tbody tr");
  assert.equal(await rows.count(), 3);
  const second = await rows.nth(1).locator("td").allTextContents();
  assert.deepEqual(second.slice(0, 8), ["2", "120", "12", "80", "biphasic", "100", "1000", "150"]);
  const first = await rows.first().locator("td").allTextContents();
  assert.equal(first[0], "1");
  assert.equal(first.length, 2 + 3 * 6);
  assert.equal(first[8], "", "a phase with fewer channels leaves the other channel cells empty");
  // No editing: no inputs inside the grid.
  assert.equal(await page.locator(".p-datatable input").count(), 0);

  const box = await page.locator(".p-datatable").evaluate((el) => {
    const r = el.parentElement!.getBoundingClientRect();
    return { width: r.width, height: r.height, vw: innerWidth, vh: innerHeight };
  });
  // The specification's width (viewport minus 250px) at most: narrower when the content area is, never a page that scrolls
  // sideways.
  const content = await page.locator("main").evaluate((el) =>
    el.clientWidth - 2 * parseFloat(getComputedStyle(el).paddingRight)
  );
  assert.equal(Math.round(box.width), Math.round(Math.min(box.vw - 250, content)));
  assert.equal(Math.round(box.height), Math.max(200, box.vh - 500));
  assert.ok(
    await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    "no sideways scroll of the page",
  );

  // Images come through the bearer-token API as object URLs.
  const images = page.getByRole("img", { name: /of Knee pain$/ });
  await images.nth(1).waitFor();
  assert.equal(await images.count(), 2);
  await page.waitForFunction(() =>
    [...document.querySelectorAll<HTMLImageElement>("img")].filter((i) => i.complete && i.naturalWidth === 40)
      .length === 2
  );
  assert.match((await images.first().getAttribute("src")) ?? "", /^blob:/);
  await screenshot("treatments-03-detail");

  // Back finds the list as it was left, search included (it lives in the URL).
  await page.goBack();
  await heading(page, "Treatments (1/3)").waitFor();
  assert.equal(await page.getByPlaceholder("Search on name").inputValue(), " knee");
  await page.getByPlaceholder("Search on name").fill("");
  await heading(page, "Treatments (3/3)").waitFor();

  // Keyboard: the name in a row is a link.
  await page.getByRole("link", { name: "Back relief" }).focus();
  await page.keyboard.press("Enter");
  await heading(page, "Treatment: Back relief").waitFor();

  // An unknown id shows the route error page.
  await visit("/treatments/no-such-treatment");
  await heading(page, "Error").waitFor();
});

e2eTest("import dialog: a real .sqlite3 that succeeds and one that fails", async (c) => {
  const { page, visit, signIn, screenshot, api } = c;
  await importTreatments(api, [knee]);
  const kneeId = (await api.listTreatments())[0]._id;
  const dir = await Deno.makeTempDir({ prefix: "e2e-import-" });
  try {
    const good = `${dir}/good.sqlite3`;
    makeImportDb(good, [{ ...knee, category: "Knee", images: [] }, back]);
    const bad = `${dir}/broken.sqlite3`;
    makeImportDb(bad, [sleep, { name: "Bad one", phases: [{ duration: -5, channels: [] }] }]);

    await visit("/treatments");
    await signIn();
    await heading(page, "Treatments (1/1)").waitFor();
    await page.getByRole("button", { name: "Import treatments" }).click();
    const dlg = page.getByRole("dialog");
    await dlg.getByText("Import treatments", { exact: true }).waitFor();
    await dlg.getByText("WARNING: Importing treatments will overwrite any existing treatment with the same name.")
      .waitFor();
    const importButton = dlg.getByRole("button", { name: "Import", exact: true });
    assert.equal(await importButton.isDisabled(), true);
    const input = dlg.getByLabel("Select .sqlite3 file");
    assert.equal(await input.getAttribute("accept"), ".sqlite3");
    // Keyboard: once the dialog has placed its focus, Tab reaches the file picker.
    await page.waitForFunction(() => document.activeElement?.closest(".p-dialog"));
    const pickerFocused = () =>
      page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type === "file");
    for (let i = 0; i < 5 && !await pickerFocused(); i++) await page.keyboard.press("Tab");
    assert.equal(await pickerFocused(), true, "the file picker is reachable with Tab");
    await input.setInputFiles(good);
    await dlg.getByText("Selected file: good.sqlite3", { exact: true }).waitFor();
    assert.equal(await importButton.isDisabled(), false);
    await screenshot("treatments-04-import-chosen");
    await importButton.click();
    await dlg.getByText("Import successful").waitFor();
    await dlg.getByText("2 treatment(s) imported: 1 created, 1 updated.").waitFor();
    assert.equal(await dlg.getByRole("button", { name: "Import", exact: true }).count(), 0);
    assert.equal(await dlg.getByRole("button", { name: "Cancel" }).count(), 0);
    await screenshot("treatments-05-import-successful");
    await dlg.locator(".p-dialog-footer").getByRole("button", { name: "Close" }).click();
    await dlg.waitFor({ state: "hidden" });
    // The list is refreshed; the overwritten treatment kept its id.
    await heading(page, "Treatments (2/2)").waitFor();
    await page.getByRole("row", { name: /Knee pain/ }).getByRole("cell", { name: "Knee", exact: true }).waitFor();
    assert.equal((await api.listTreatments()).find((t) => t.name === "Knee pain")?._id, kneeId);

    // A file the server refuses: 'Import failed' with its msg, and nothing changes.
    await page.getByRole("button", { name: "Import treatments" }).click();
    await dlg.getByText("Select .sqlite3 file", { exact: true }).waitFor();
    await dlg.getByLabel("Select .sqlite3 file").setInputFiles(bad);
    await dlg.getByRole("button", { name: "Import", exact: true }).click();
    await dlg.getByText("Import failed").waitFor();
    await dlg.getByText(/phases/).waitFor();
    await screenshot("treatments-06-import-failed");
    await dlg.locator(".p-dialog-footer").getByRole("button", { name: "Close" }).click();
    await dlg.waitFor({ state: "hidden" });
    assert.deepEqual((await api.listTreatments()).map((t) => t.name), ["Back relief", "Knee pain"]);
    await heading(page, "Treatments (2/2)").waitFor();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
