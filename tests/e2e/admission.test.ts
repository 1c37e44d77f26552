/**
 * Device admission in the console (docs/REQUIREMENTS.md §11, DEVICE_AUTH=token): the admission filter with the pending count,
 * accept and reject per row and for a selection, the device screen's card with Reset credentials; confirm dialogs
 * (focus on Cancel), toasts, and axe on each state.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEVICE_API_KEY } from "../../testing/server.ts";
import { assertAccessible } from "./a11y.ts";
import { assertEventually, e2eTest, settled } from "./helpers.ts";

async function accessible(page: Page, where: string) {
  await settled(page);
  await page.waitForTimeout(350);
  await assertAccessible(page, where);
}

e2eTest("device admission: filter with the pending count, accept and reject, credentials card", async (c) => {
  const { page, visit, signIn, screenshot, srv, api } = c;
  const enroll = async (id: string) => {
    const res = await srv.fetch(`/api/v1/device/${id}/enroll`, {
      method: "POST",
      token: DEVICE_API_KEY,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ versionInfo: { app: "1.0.0", os: "os", channels: [] } }),
    });
    return { status: res.status, json: await res.json() };
  };
  for (const id of ["new-1", "new-2", "new-3", "new-4"]) assert.equal((await enroll(id)).status, 202);
  await api.preauthorizeDevice("old-1");

  await visit("/devices");
  await signIn();
  const filter = page.getByLabel("Admission", { exact: true });
  await filter.waitFor();
  await assertEventually(async () => assert.equal(await filter.locator("option:checked").innerText(), "All devices"));
  await assertEventually(async () => assert.ok((await filter.innerText()).includes("Pending (4)")));
  await filter.selectOption({ label: "Pending (4)" });
  await page.waitForURL(/admission=pending/);
  const rows = page.locator("tbody tr");
  await assertEventually(async () => assert.equal(await rows.count(), 4));
  await accessible(page, "devices, pending filter");
  await screenshot("admission-pending");

  // Accept one row: a confirm dialog with focus on "Leave as is", then a toast; the row leaves the pending list.
  await page.getByRole("button", { name: "Accept new-1" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("Accept device new-1?").first().waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Leave as is");
  await accessible(page, "accept dialog");
  await dialog.getByRole("button", { name: "Accept", exact: true }).click();
  await page.locator(".p-toast").getByText("Device accepted").waitFor();
  await assertEventually(async () => assert.equal(await rows.count(), 3));
  assert.equal((await api.getDevice("new-1")).admission, "accepted");
  await assertEventually(async () => assert.match(await filter.innerText(), /Pending \(3\)/));

  // Reject a selection of two.
  await page.getByLabel("Select new-2").check();
  await page.getByLabel("Select new-3").check();
  await page.getByText("2 selected").waitFor();
  await page.getByRole("button", { name: "Reject selected" }).click();
  await dialog.getByText("Reject 2 devices?").first().waitFor();
  await dialog.getByRole("button", { name: "Reject 2 devices" }).click();
  await page.locator(".p-toast").getByText("Devices rejected").waitFor();
  await assertEventually(async () => assert.equal(await rows.count(), 1));
  assert.equal((await api.getDevice("new-2")).admission, "rejected");
  assert.equal((await api.getDevice("new-3")).admission, "rejected");
  assert.equal(await page.getByText("selected", { exact: false }).count(), 0, "the selection is cleared");

  // The device screen: the card, then Reset credentials once the device holds a token.
  const issued = await enroll("new-1");
  assert.equal(issued.status, 201);
  await visit("/devices/new-1");
  const card = page.locator(".p-card", { hasText: "Admission and credentials" });
  await card.getByText(/Token issued/).waitFor();
  await accessible(page, "device with credentials");
  await card.getByRole("button", { name: "Reset credentials" }).click();
  await dialog.getByText("Reset credentials of device new-1?").first().waitFor();
  await dialog.getByRole("button", { name: "Reset credentials" }).click();
  await page.locator(".p-toast").getByText("Credentials reset").waitFor();
  await card.getByText("No token yet: issued at the next enrolment").waitFor();
  assert.equal(
    (await srv.fetch("/api/v1/device/new-1/config", { token: issued.json.token })).status,
    401,
    "the old token is dead",
  );
  await screenshot("admission-device-card");

  // Reject from the card; then Accept is offered again.
  await card.getByRole("button", { name: "Reject" }).click();
  await dialog.getByRole("button", { name: "Reject", exact: true }).click();
  await card.getByText("Rejected", { exact: true }).waitFor();
  await card.getByRole("button", { name: "Accept" }).waitFor();
}, { env: { DEVICE_AUTH: "token" } });

e2eTest("device admission controls are hidden with DEVICE_AUTH=shared", async (c) => {
  const { page, visit, signIn, srv } = c;
  await srv.fetch("/api/v1/device/shared-1/checkin", {
    method: "POST",
    token: DEVICE_API_KEY,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ versionInfo: { app: "1", os: "1", channels: [] } }),
  }).then((r) => r.body?.cancel());
  await visit("/devices");
  await signIn();
  await page.getByText("shared-1", { exact: true }).waitFor();
  await settled(page);
  assert.equal(await page.locator("#device-admission").count(), 0);
  assert.equal(await page.getByRole("button", { name: /Accept|Reject/ }).count(), 0);
  await visit("/devices/shared-1");
  await page.getByText("Device information").waitFor();
  await settled(page);
  assert.equal(await page.getByText("Admission and credentials").count(), 0);
});
