/**
 * A phone, 390 px (issue 34): every screen fits the screen's width (tables scroll in their own box), the devices
 * filters sit behind a "Filters (n)" button, and the Operators actions are reachable.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { checkInDevices, e2eTest, importTreatments, settled, treatment } from "./helpers.ts";

const documentWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

e2eTest(
  "390 px: no screen is wider than the phone; filters behind a button; operators' actions reachable",
  async (c) => {
    const { page, visit, signIn, screenshot, api, srv } = c;
    const ids = Array.from({ length: 12 }, (_, i) => `phone-device-${i}`);
    await checkInDevices(srv, ids);
    await importTreatments(api, [treatment("Knee pain", 4)]);
    const dir = await Deno.makeTempDir({ prefix: "e2e-phone-" });
    const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "phone-firmware-2.0.xz")));
    await Deno.remove(dir, { recursive: true });
    const type = await api.createProductType("Walker");
    const rollout = await api.createRollout({ name: "Phone rollout", firmwareId: fw._id, productTypeId: null });
    await api.rolloutAction(rollout._id, "start");
    await api.createOperator({
      email: "a-rather-long-operator-address@example.com",
      role: "viewer",
      password: "pass-phone-1",
    });
    await api.createApiToken({ name: "Nightly firmware upload from the CI", scopes: ["read"] });
    const treatments = await api.listTreatmentSummaries();

    await page.setViewportSize({ width: 390, height: 844 });
    await visit("/");
    await signIn();
    const screens: [string, string][] = [
      ["/", "Overview"],
      ["/devices", "Devices"],
      [`/devices/${ids[0]}`, `Device ${ids[0]}`],
      ["/treatments", "Treatments"],
      [`/treatments/${treatments[0]._id}`, "Treatment: Knee pain"],
      ["/product_types", "Product types"],
      [`/product_types/${type._id}`, "Product type: Walker"],
      ["/device_firmwares", "Device firmwares"],
      ["/rollouts", "Rollouts"],
      [`/rollouts/${rollout._id}`, "Rollout Phone rollout"],
      ["/api_tokens", "API tokens"],
      ["/release_keys", "Release keys"],
      ["/audit", "Audit log"],
      ["/operators", "Operators"],
    ];
    const wide: string[] = [];
    for (const [path, heading] of screens) {
      await visit(path);
      await page.getByRole("heading", { name: heading }).first().waitFor();
      await settled(page);
      await page.waitForTimeout(300);
      const width = await documentWidth(page);
      console.log(`390 px: ${path} is ${width} px wide`);
      if (width > 390) wide.push(`${path}: ${width} px`);
      await screenshot(`phone-${path.split("/")[1] || "overview"}${path.split("/")[2] ? "-detail" : ""}`);
    }
    assert.deepEqual(wide, [], "every screen fits 390 px");

    // The devices filters: one button saying how many are set, the filters open below it.
    await visit("/devices?productTypeId=none");
    await page.getByRole("heading", { name: "Devices" }).waitFor();
    const toggle = page.getByRole("button", { name: /^Filters \(1\)$/ });
    await toggle.waitFor();
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    assert.equal(await page.locator(".devices-filters").isVisible(), false, "the filters are folded away");
    await toggle.click();
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    await page.locator(".devices-filters").waitFor();
    assert.ok(await documentWidth(page) <= 390);
    await screenshot("phone-devices-filters-open");

    // Operators: each row's actions can be reached (scrolled into view inside the table's box) and used.
    await visit("/operators");
    await page.getByRole("heading", { name: /Operators/ }).waitFor();
    const reset = page.getByRole("button", { name: "Reset password of a-rather-long-operator-address@example.com" });
    await reset.scrollIntoViewIfNeeded();
    const box = await reset.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the action is on screen: ${JSON.stringify(box)}`);
    await reset.click();
    await page.getByRole("dialog").getByLabel("New password").waitFor();
    assert.ok(await documentWidth(page) <= 390);
  },
);
