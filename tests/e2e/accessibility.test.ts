/**
 * Accessibility in the browser: axe-core (WCAG 2.1 A/AA) finds nothing on any page or open dialog; the keyboard
 * alone reaches everything (skip link, focus on the heading after navigation, dialogs focus their first field).
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { assertAccessible } from "./a11y.ts";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  checkInDevices,
  e2eTest,
  importTreatments,
  settled,
  treatment,
} from "./helpers.ts";

/** Collects every page's violations and fails once at the end, so one run lists them all. */
function collector() {
  const problems: string[] = [];
  return {
    async check(page: Page, where: string, include?: string) {
      await settled(page);
      // Animations (dialogs, overlays) finish before axe measures colours.
      await page.waitForTimeout(350);
      try {
        await assertAccessible(page, where, include);
      } catch (err) {
        problems.push((err as Error).message);
      }
    },
    done() {
      if (problems.length) throw new Error(problems.join("\n\n"));
    },
  };
}

async function seed(c: Parameters<Parameters<typeof e2eTest>[1]>[0]) {
  const { srv, api } = c;
  await checkInDevices(srv, Array.from({ length: 30 }, (_, i) => `a11y-${String(i).padStart(2, "0")}`));
  await importTreatments(api, [
    treatment("Knee pain", 3),
    treatment("A treatment with a really long name that goes on and on past any column", 2, "Sleep"),
    treatment("Back relief", 1),
  ]);
  const treatments = await api.listTreatments();
  const type = await api.createProductType("Walker");
  const saved = await api.patchProductType({
    _id: type._id,
    name: type.name,
    modules: [
      { name: "Base", isDefault: true, treatmentIds: [treatments[0]._id] },
      { name: "Extra", isDefault: false, treatmentIds: [] },
    ],
  });
  const dir = await Deno.makeTempDir();
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "custom-1.xz")));
  await Deno.remove(dir, { recursive: true });
  await api.patchDevice({
    deviceId: "a11y-01",
    productTypeId: type._id,
    moduleIds: [saved.modules[1]._id],
    firmware: fw._id,
    additionalTreatmentIds: [treatments[1]._id],
  });
  return { type, treatments };
}

e2eTest("accessibility: axe finds nothing on any page or open dialog", async (c) => {
  const { page, visit, signIn } = c;
  const { type, treatments } = await seed(c);
  const axe = collector();
  // The strict CSP stays quiet: no violation reports (zod's eval probe was one on every page).
  const csp: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  const dialog = page.getByRole("dialog");
  const closeDialog = async () => {
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  };

  await visit("/");
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await axe.check(page, "sign-in");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("Please enter a valid email address.").waitFor();
  await axe.check(page, "sign-in with errors");
  await signIn();

  await page.getByRole("heading", { name: "Overview" }).waitFor();
  await page.getByRole("link", { name: "Devices 30" }).waitFor();
  // The fleet health charts load after the page: axe sees them too.
  await page.locator(".overview-chart canvas").nth(2).waitFor();
  await axe.check(page, "overview");

  await page.getByRole("button", { name: /^Account/ }).click();
  await page.getByRole("menu").waitFor();
  await axe.check(page, "account menu");
  await page.getByRole("menuitem", { name: "Change password" }).click();
  await dialog.waitFor();
  await axe.check(page, "change password dialog");
  await closeDialog();

  await visit("/devices");
  await page.getByText("a11y-00", { exact: true }).waitFor();
  await axe.check(page, "devices");

  await visit("/devices/a11y-01");
  await page.getByRole("heading", { name: "Device a11y-01" }).waitFor();
  await axe.check(page, "device detail");
  await page.getByRole("button", { name: "Add treatment" }).click();
  await axe.check(page, "device: treatment picker shown");
  await page.locator("main .p-dropdown").last().click();
  await page.locator(".p-dropdown-panel").waitFor();
  await axe.check(page, "device: treatment picker open");
  await page.keyboard.press("Escape");

  await visit("/treatments");
  await page.getByRole("heading", { name: "Treatments (3/3)" }).waitFor();
  await axe.check(page, "treatments");
  await page.getByRole("button", { name: "Import treatments" }).click();
  await dialog.waitFor();
  await axe.check(page, "import dialog");
  await closeDialog();

  await visit(`/treatments/${treatments[0]._id}`);
  await page.getByRole("heading", { name: /^Treatment: / }).waitFor();
  await axe.check(page, "treatment detail");

  await visit("/product_types");
  await page.getByRole("heading", { name: "Product types (1)" }).waitFor();
  await axe.check(page, "product types");
  await page.getByRole("button", { name: "Add product type" }).click();
  await dialog.waitFor();
  await axe.check(page, "add product type dialog");
  await closeDialog();

  await visit(`/product_types/${type._id}`);
  await page.getByRole("heading", { name: "Product type: Walker" }).waitFor();
  await axe.check(page, "product type detail");
  await page.getByRole("button", { name: "Edit product type name" }).click();
  await dialog.waitFor();
  await axe.check(page, "rename dialog");
  await closeDialog();
  await page.getByRole("button", { name: "Add module" }).click();
  await dialog.waitFor();
  await axe.check(page, "module dialog");
  await closeDialog();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await dialog.waitFor();
  await axe.check(page, "confirm dialog");
  await closeDialog();

  await visit("/device_firmwares");
  await page.getByRole("heading", { name: "Device firmwares" }).waitFor();
  await axe.check(page, "device firmwares");
  await page.getByRole("button", { name: "Upload firmware" }).click();
  await dialog.waitFor();
  await axe.check(page, "upload dialog");
  await closeDialog();

  await visit("/no/such/page");
  await page.getByRole("heading", { name: "Error" }).waitFor();
  await axe.check(page, "error page");
  axe.done();
  assert.deepEqual(csp, [], "CSP violations in the console");
});

const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el ? `${el.tagName.toLowerCase()}:${el.getAttribute("aria-label") ?? el.textContent?.trim() ?? ""}` : "";
  });

e2eTest("keyboard only: sign in, skip link, titles and focus per route, dialogs and the picker", async (c) => {
  const { page, visit, api, srv } = c;
  await checkInDevices(srv, ["kb-01"]);
  await importTreatments(api, [treatment("Knee pain", 2), treatment("Back relief", 1)]);

  await visit("/devices");
  await page.getByLabel("E-mail").waitFor();
  assert.match(await page.title(), /^Sign in · /);
  // The e-mail field has the focus; Tab to the password, Enter submits.
  await page.waitForFunction(() => document.activeElement?.id === "login-email");
  await page.keyboard.type(ADMIN_EMAIL);
  await page.keyboard.press("Tab");
  await page.keyboard.type(ADMIN_PASSWORD);
  await page.keyboard.press("Enter");

  // After sign-in the page's heading has the focus and names the tab.
  const devicesHeading = page.getByRole("heading", { name: "Devices", exact: true });
  await devicesHeading.waitFor();
  await page.waitForFunction(() => document.activeElement?.tagName === "H1");
  assert.match(await page.title(), /^Devices · /);

  // The skip link comes before the top bar (the first stop of Tab); it leads to the page heading.
  await page.getByRole("link", { name: "Therapy device fleet console" }).focus();
  await page.keyboard.press("Shift+Tab");
  assert.equal(await focusedName(page), "a:Skip to content");
  assert.ok(await page.getByRole("link", { name: "Skip to content" }).isVisible(), "the skip link shows on focus");
  await page.keyboard.press("Enter");
  assert.equal(await focusedName(page), "h1:Devices");

  // Following a menu link with the keyboard: the new page's heading gets the focus and the title changes.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Product types" }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Product types (0)" }).waitFor();
  await page.waitForFunction(() => document.activeElement?.textContent === "Product types (0)");
  assert.match(await page.title(), /^Product types · /);

  // A dialog opens on its first field: type and Enter create the product type.
  await page.keyboard.press("Tab");
  assert.equal(await focusedName(page), "button:Add product type");
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").waitFor();
  await page.waitForFunction(() =>
    document.activeElement?.getAttribute("placeholder") === "Enter name for product type"
  );
  await page.keyboard.type("Keyboard type");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Product types (1)" }).waitFor();
  // Closed, the dialog gives the focus back to the button that opened it.
  await page.getByRole("dialog").waitFor({ state: "hidden" });
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Add product type");

  // The account menu and the change-password dialog, focused on 'Current password'.
  await page.getByRole("button", { name: /^Account/ }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("menu").waitFor();
  // The menu opens on its first enabled item, 'Change password'.
  await page.waitForFunction(() =>
    document.getElementById(document.activeElement?.getAttribute("aria-activedescendant") ?? "")?.textContent ===
      "Change password"
  );
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").waitFor();
  await page.waitForFunction(() => {
    const el = document.activeElement;
    return el?.id && document.querySelector(`label[for="${el.id}"]`)?.textContent === "Current password";
  });
  await page.keyboard.press("Escape");
  await page.getByRole("dialog").waitFor({ state: "hidden" });

  // Device detail: the treatment picker from the keyboard, the confirmation focused on "Don't add", then "Add to device".
  await visit("/devices/kb-01");
  await page.getByRole("heading", { name: "Device kb-01" }).waitFor();
  assert.match(await page.title(), /^Device kb-01 · /);
  await page.getByRole("button", { name: "Add treatment" }).focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-haspopup") === "listbox");
  await page.keyboard.press("ArrowDown");
  await page.locator(".p-dropdown-panel").waitFor();
  // The filter takes the focus once the panel's opening transition ends: keys typed before it go to the dropdown.
  await page.waitForFunction(() => document.activeElement?.classList.contains("p-dropdown-filter") === true);
  await page.keyboard.type("knee");
  // The list filtered before ArrowDown: else the key moves through the whole list and Enter picks another treatment.
  await page.waitForFunction(() => {
    const options = [...document.querySelectorAll(".p-dropdown-panel [role='option']")];
    return options.length === 1 && options[0].textContent?.includes("Knee pain");
  });
  await page.keyboard.press("ArrowDown");
  await page.locator(".p-dropdown-panel [role='option'][data-p-focused='true']").getByText("Knee pain").waitFor();
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").getByText("Add treatment Knee pain to device kb-01?").waitFor();
  await page.waitForFunction(() => document.activeElement?.textContent?.trim() === "Don't add");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await page.getByRole("list", { name: "Additional treatments" }).getByText("Knee pain").waitFor();
  assert.deepEqual((await api.getDevice("kb-01")).additionalTreatmentIds.length, 1);
});
