/**
 * Any screen: a phone (390 px) and a desktop (1440 px). The menu collapses into a drawer below 900 px, no page scrolls
 * sideways (tables and the phase grid scroll inside their cards), the phase grid keeps '#' and 'Duration' in view,
 * long names never squeeze buttons, axe finds nothing at 390 px either; the treatments search survives Back, and the
 * devices page does not shift as its rows arrive.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { assertAccessible } from "./a11y.ts";
import { checkInDevices, e2eTest, importTreatments, settled, treatment } from "./helpers.ts";

const LONG = "A product type with an exceptionally long name that keeps going well past the width of any phone " +
  "screen and then some more";

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

async function seed(c: Parameters<Parameters<typeof e2eTest>[1]>[0]) {
  await checkInDevices(c.srv, Array.from({ length: 30 }, (_, i) => `screen-device-with-a-long-id-${i}`));
  await importTreatments(c.api, [
    treatment("Knee pain", 8),
    treatment("Back relief", 2),
    treatment(`Treatment ${LONG}`, 1),
  ]);
  const list = await c.api.listTreatmentSummaries();
  const type = await c.api.createProductType(LONG);
  await c.api.patchProductType({
    _id: type._id,
    name: type.name,
    modules: [{ name: `Module ${LONG}`, isDefault: false, treatmentIds: list.map((t) => t._id) }],
  });
  await c.api.patchDevice({
    deviceId: "screen-device-with-a-long-id-1",
    productTypeId: type._id,
    moduleIds: [],
    additionalTreatmentIds: list.map((t) => t._id),
  });
  return { type, knee: list.find((t) => t.name === "Knee pain")!, list };
}

e2eTest("a phone, 390 px: drawer menu, nothing scrolls sideways, axe finds nothing", async (c) => {
  const { page, visit, signIn, screenshot } = c;
  const { type, knee } = await seed(c);
  await page.setViewportSize({ width: 390, height: 844 });
  await visit("/");
  await signIn();
  await page.getByRole("heading", { name: "Overview" }).waitFor();

  // The menu is a closed drawer; the account button is on screen.
  const nav = page.getByRole("navigation", { name: "Main" });
  assert.equal(await nav.isVisible(), false, "the menu is closed");
  const account = await page.getByRole("button", { name: /^Account/ }).boundingBox();
  assert.ok(account && account.x + account.width <= 390, `account button at ${JSON.stringify(account)}`);
  const toggle = page.getByRole("button", { name: "Menu" });
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  await toggle.click();
  await nav.getByRole("link", { name: "Devices" }).waitFor();
  assert.equal(await toggle.getAttribute("aria-expanded"), "true");
  await screenshot("screens-390-01-menu-open");
  await assertAccessible(page, "390: menu open");
  // Escape closes it and gives the focus back to the menu button.
  await page.keyboard.press("Escape");
  await nav.waitFor({ state: "hidden" });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Menu");
  await toggle.click();
  await nav.getByRole("link", { name: "Devices" }).click();
  await page.getByRole("heading", { name: "Devices", exact: true }).waitFor();
  await nav.waitFor({ state: "hidden" });

  const pages: [string, string | RegExp][] = [
    ["/", "Overview"],
    ["/devices", "Devices"],
    ["/devices/screen-device-with-a-long-id-1", "Device screen-device-with-a-long-id-1"],
    ["/treatments", "Treatments (3/3)"],
    [`/treatments/${knee._id}`, "Treatment: Knee pain"],
    ["/product_types", "Product types (1)"],
    [`/product_types/${type._id}`, `Product type: ${LONG}`],
    ["/device_firmwares", "Device firmwares"],
  ];
  for (const [path, heading] of pages) {
    await visit(path);
    await page.getByRole("heading", { name: heading, exact: true }).waitFor();
    await settled(page);
    await page.waitForTimeout(250);
    assert.ok(await noSidewaysScroll(page), `${path} scrolls sideways at 390 px`);
    await assertAccessible(page, `390: ${path}`);
    await screenshot(`screens-390-${path.split("/")[1] || "overview"}${path.split("/")[2] ? "-detail" : ""}`);
  }

  // Long names: the module card's buttons keep their size; the full name is on hover.
  await visit(`/product_types/${type._id}`);
  const edit = page.getByRole("button", { name: `Edit module Module ${LONG}` });
  const box = await edit.boundingBox();
  assert.ok(box && box.width >= 32, `the edit button is ${box?.width} px wide`);
  assert.equal(await page.locator(".module-card .p-card-title .ellipsis").getAttribute("title"), `Module ${LONG}`);

  // The phase grid: as wide as the content, scrolls inside; '#' and 'Duration' stay when it does.
  await visit(`/treatments/${knee._id}`);
  const wrapper = page.getByRole("region", { name: "Phase grid, scrollable" });
  await wrapper.waitFor();
  const firstCell = page.locator(".phase-grid .p-datatable-tbody tr").first().locator("td").first();
  const before = await firstCell.boundingBox();
  await wrapper.evaluate((el) => (el.scrollLeft = 400));
  await page.waitForFunction(() => document.querySelector(".phase-grid .p-datatable-wrapper")!.scrollLeft > 0);
  const after = await firstCell.boundingBox();
  assert.equal(Math.round(after!.x), Math.round(before!.x), "the '#' column stays in view");
  assert.ok(await noSidewaysScroll(page));
  await screenshot("screens-390-treatment-grid-scrolled");
});

e2eTest("a desktop, 1440 px: fixed menu, grid within the page, search kept on Back, no layout shift", async (c) => {
  const { page, visit, signIn, screenshot } = c;
  const { knee } = await seed(c);
  await page.setViewportSize({ width: 1440, height: 900 });
  await visit("/");
  await signIn();
  const nav = page.getByRole("navigation", { name: "Main" });
  // The app's menu, not the empty frame shown while the app's code loads (it is replaced, and a replaced element
  // measures 0).
  await nav.getByRole("link", { name: "Devices" }).waitFor();
  assert.equal(Math.round(await nav.evaluate((el) => el.getBoundingClientRect().width)), 220);
  assert.equal(await page.getByRole("button", { name: "Menu" }).isVisible(), false);

  // The treatments search lives in the URL: Back from a treatment finds it.
  await visit("/treatments");
  await page.getByRole("heading", { name: "Treatments (3/3)" }).waitFor();
  await page.getByPlaceholder("Search on name").fill("knee");
  await page.getByRole("heading", { name: "Treatments (1/3)" }).waitFor();
  await page.waitForURL((u) => u.search === "?q=knee");
  await page.getByRole("link", { name: "Knee pain" }).click();
  await page.getByRole("heading", { name: "Treatment: Knee pain" }).waitFor();
  assert.ok(await noSidewaysScroll(page), "the treatment page scrolls sideways");
  const units = await page.locator(".phase-grid .p-datatable-thead .unit").allTextContents();
  assert.deepEqual(units.slice(0, 6), ["(s)", "(mA)", "(Hz)", "(ms)", "(ms)", "(ms)"]);
  await screenshot("screens-1440-treatment");
  await page.goBack();
  await page.getByRole("heading", { name: "Treatments (1/3)" }).waitFor();
  assert.equal(await page.getByPlaceholder("Search on name").inputValue(), "knee");

  for (const path of ["/", "/devices", `/treatments/${knee._id}`, "/product_types"]) {
    await visit(path);
    await settled(page);
    assert.ok(await noSidewaysScroll(page), `${path} scrolls sideways at 1440 px`);
  }

  // Cold devices page on a slow answer: skeleton rows hold the place, the rows arrive without moving anything. The
  // answer is held until the skeleton shows (the page asks for it at start, beside its code, so a fixed delay could end
  // before the table is there).
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  await page.route("**/api/v1/devices?*", async (route) => {
    await released;
    await route.continue();
  });
  await visit("/devices");
  await page.locator("tbody .skeleton").first().waitFor();
  await page.evaluate(() => {
    // deno-lint-ignore no-explicit-any
    const w = globalThis as any;
    w.__shift = 0;
    new PerformanceObserver((list) => {
      // deno-lint-ignore no-explicit-any
      for (const e of list.getEntries() as any[]) {
        if (e.hadRecentInput) continue;
        w.__shift += e.value;
        w.__sources = [
          ...(w.__sources ?? []),
          // deno-lint-ignore no-explicit-any
          ...e.sources.map((s: any) =>
            `${e.value.toFixed(3)} ${s.node?.nodeName}.${s.node?.className} ${JSON.stringify(s.previousRect)} -> ${
              JSON.stringify(s.currentRect)
            }`
          ),
        ];
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  release();
  await page.getByText("screen-device-with-a-long-id-0", { exact: true }).waitFor();
  await settled(page);
  await page.waitForTimeout(300);
  // deno-lint-ignore no-explicit-any
  const shift = await page.evaluate(() => (globalThis as any).__shift as number);
  // deno-lint-ignore no-explicit-any
  const sources = await page.evaluate(() => (globalThis as any).__sources ?? []);
  assert.ok(shift <= 0.05, `cumulative layout shift ${shift.toFixed(3)}:\n${sources.join("\n")}`);
  await screenshot("screens-1440-devices");
});
