import assert from "node:assert/strict";
import { e2eTest } from "./helpers.ts";

e2eTest(
  "the API reference at /api/docs renders every operation within the CSP",
  async ({ page, visit, screenshot, srv }) => {
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    await visit("/api/docs");
    await page.locator(".opblock").first().waitFor();
    const doc = await (await srv.fetch("/api/v1/openapi.json")).json();
    const operations = Object.values(doc.paths as Record<string, object>).reduce(
      (n, p) => n + Object.keys(p).length,
      0,
    );
    assert.equal(await page.locator(".opblock").count(), operations);
    await page.getByText("/api/v1/devices/{deviceId}").first().waitFor();
    assert.deepEqual(violations, []);
    await screenshot("api-docs");
  },
);
