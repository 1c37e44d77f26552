/**
 * Rollouts in the console (CONTRACT §13): the list with a bar per stage, the create dialog with its preview, the detail
 * screen (per-stage counts, the lazy chart, failed devices with their messages and links), the actions behind
 * confirmations, the device screen's update status; axe finds nothing on any of them.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { DEVICE_API_KEY } from "../../testing/server.ts";
import { assertAccessible } from "./a11y.ts";
import { checkInDevices, e2eTest, pick, settled } from "./helpers.ts";

e2eTest("rollouts: create with a preview, watch it pause on failures, resume; device update status", async (c) => {
  const { page, visit, signIn, screenshot, api, srv } = c;
  const ids = Array.from({ length: 40 }, (_, i) => `ro-${String(i).padStart(2, "0")}`);
  await checkInDevices(srv, ids);
  const dir = await Deno.makeTempDir({ prefix: "e2e-rollouts-" });
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "jeecee-fw-3.0.xz", "three")));
  await Deno.remove(dir, { recursive: true });
  const axe = async (where: string) => {
    await settled(page);
    // A toast is the theme's (checked by the accessibility suite); it goes after a few seconds.
    await page.locator(".p-toast-message").waitFor({ state: "detached", timeout: 10_000 });
    await page.waitForTimeout(350);
    await assertAccessible(page, where);
  };

  await visit("/rollouts");
  await signIn();
  await page.getByRole("heading", { name: "Rollouts" }).waitFor();
  await page.getByText("No rollouts yet.", { exact: false }).waitFor();
  await axe("rollouts: empty");

  await page.getByRole("button", { name: "New rollout" }).click();
  const dlg = page.getByRole("dialog");
  await dlg.getByText("New rollout", { exact: true }).waitFor();
  await dlg.getByText("40 devices targeted", { exact: false }).waitFor();
  const preview = dlg.getByTestId("stage-preview");
  assert.deepEqual(await preview.locator("li").allTextContents(), [
    "Stage 1: 1 % ≈ 0 devices",
    "Stage 2: 10 % ≈ 4 devices",
    "Stage 3: 50 % ≈ 20 devices",
    "Stage 4: 100 % ≈ 40 devices",
  ]);
  assert.equal(await dlg.getByRole("button", { name: "Create and start" }).isDisabled(), true);
  await pick(page, dlg.locator(".p-dropdown").first(), "jeecee-fw-3.0.xz");
  await dlg.getByLabel("Stages (cumulative %)").fill("25, 10");
  await dlg.getByText("Stages must be strictly increasing.").waitFor();
  assert.equal(await dlg.getByRole("button", { name: "Create and start" }).isDisabled(), true);
  await dlg.getByLabel("Stages (cumulative %)").fill("25, 100");
  await dlg.getByText("Stage 1: 25 % ≈ 10 devices").waitFor();
  await dlg.getByLabel("Failure threshold (%)").fill("10");
  await axe("rollouts: create dialog");
  await screenshot("rollouts-01-create");
  await dlg.getByRole("button", { name: "Create and start" }).click();

  // The detail screen: running, stage 1 of 2.
  await page.getByRole("heading", { name: "Rollout jeecee-fw-3.0.xz" }).waitFor();
  await page.getByText("running", { exact: true }).first().waitFor();
  const rollout = (await api.listRollouts())[0];
  assert.equal(rollout.state, "running");
  assert.equal(rollout.failureThreshold, 10);
  const inStage = await api.rolloutDevices(rollout._id, { rowsPerPage: 100 });
  assert.ok(inStage.total >= 2, `${inStage.total} devices in the first stage`);

  // Reports: one installs, then failures over 10 % pause it.
  const report = (id: string, state: "installed" | "failed", message?: string) =>
    new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).status({ firmwareId: fw._id, state, message });
  await report(inStage.data[0].deviceId, "installed");
  // strictly over 10 % of the stage (exactly 10 % is not over)
  const failing = inStage.data.slice(1, 2 + Math.floor(inStage.total * 0.1));
  for (const d of failing) await report(d.deviceId, "failed", "Checksum mismatch after download");
  await page.reload();
  await page.getByText(/^Paused automatically: /).waitFor();
  const devices = page.getByTestId("rollout-devices");
  await devices.getByRole("link", { name: failing[0].deviceId }).waitFor();
  await devices.getByText("Checksum mismatch after download").first().waitFor();
  await page.getByTestId("rollout-chart").locator("canvas").waitFor();
  await axe("rollouts: paused detail");
  await screenshot("rollouts-02-paused");

  // Resume behind a confirmation.
  await page.getByRole("button", { name: "Resume" }).click();
  const confirm = page.getByRole("dialog");
  await confirm.getByText("The failures so far are accepted", { exact: false }).waitFor();
  await axe("rollouts: resume confirmation");
  await confirm.getByRole("button", { name: "OK" }).click();
  await confirm.waitFor({ state: "hidden" });
  await page.locator(".page-sub").getByText("running", { exact: true }).waitFor();
  assert.equal((await api.getRollout(rollout._id)).state, "running");

  // The list: a bar per stage.
  await page.getByRole("link", { name: "Rollouts" }).click();
  await page.getByRole("heading", { name: "Rollouts" }).waitFor();
  await page.getByRole("link", { name: "jeecee-fw-3.0.xz" }).waitFor();
  assert.equal(await page.locator(".rollouts-table .stage-bar").count(), 2);
  await axe("rollouts: list");
  await screenshot("rollouts-03-list");

  // A failed device's screen shows its update status.
  await visit(`/devices/${failing[0].deviceId}`);
  await page.getByRole("heading", { name: `Device ${failing[0].deviceId}` }).waitFor();
  const card = page.locator(".p-card", { hasText: "Update status" });
  await card.getByText("failed", { exact: true }).waitFor();
  await card.getByText("Checksum mismatch after download").waitFor();
  await card.getByText("jeecee-fw-3.0.xz").waitFor();
  await axe("device: update status");
});
