import assert from "node:assert/strict";
import { checkInDevices, e2eTest } from "./helpers.ts";

e2eTest(
  "overview cards show the counts and lead to their lists",
  async ({ page, visit, signIn, screenshot, srv, api }) => {
    await checkInDevices(srv, Array.from({ length: 7 }, (_, i) => `ov-${i}`));
    await api.createProductType("Overview type A");
    await api.createProductType("Overview type B");
    const treatments = (await api.listTreatments()).length;

    await visit("/");
    await signIn();
    const card = (label: string) => page.locator(".overview-card", { hasText: label });
    await card("Devices").getByText("7", { exact: true }).waitFor();
    await card("Product types").getByText("2", { exact: true }).waitFor();
    await card("Treatments").getByText(String(treatments), { exact: true }).waitFor();
    await screenshot("overview-01-cards");

    await card("Devices").click();
    await page.getByRole("heading", { name: "Devices" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/devices");
    await page.goBack();
    await card("Product types").click();
    await page.waitForURL(/\/product_types$/);
    await page.goBack();
    await card("Treatments").click();
    await page.waitForURL(/\/treatments$/);
  },
);
