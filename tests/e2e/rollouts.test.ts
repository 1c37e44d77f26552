/**
 * Rollouts in the console (docs/REQUIREMENTS.md §13): the list with a bar per stage, the create dialog with its preview, the detail
 * screen (per-stage counts, the lazy chart, failed devices with their messages and links), the actions behind
 * confirmations that name their effect in devices (resume on a complete stage stays, retry, advance, finish with
 * pending devices, promote with their numbers), the device screen's update status and firmware in effect; axe finds
 * nothing on any of them.
 */
import assert from "node:assert/strict";
import { DeviceClient } from "../../shared/client.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { DEVICE_API_KEY } from "../../testing/server.ts";
import { assertAccessible } from "./a11y.ts";
import { checkInDevices, e2eTest, pick, settled } from "./helpers.ts";

e2eTest(
  "rollouts: create, pause on failures, resume stays, retry, advance, finish with pending, promote asks",
  async (c) => {
    const { page, visit, signIn, screenshot, api, srv } = c;
    const ids = Array.from({ length: 40 }, (_, i) => `ro-${String(i).padStart(2, "0")}`);
    await checkInDevices(srv, ids);
    const dir = await Deno.makeTempDir({ prefix: "e2e-rollouts-" });
    const fw = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "jeecee-fw-3.0.xz", "three")));
    await Deno.remove(dir, { recursive: true });
    const axe = async (where: string) => {
      await settled(page);
      // A toast is the theme's (checked by the accessibility suite); it goes after a few seconds.
      await page.waitForFunction(() => !document.querySelector(".p-toast-message"), null, { timeout: 15_000 });
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

    // Every device of the stage reports: the stage is complete while paused.
    const done = new Set([inStage.data[0].deviceId, ...failing.map((d) => d.deviceId)]);
    for (const d of inStage.data) if (!done.has(d.deviceId)) await report(d.deviceId, "installed");
    const n = inStage.total;
    const stage1 = `Stage 1, 25 %: ${n} devices: ${n - failing.length} installed, ${failing.length} failed, 0 pending`;
    const stage2 = "Stage 2, 100 %: not reached (40 devices)";
    await page.reload();
    const bars = page.locator(".stage-bars:not(.compact) .stage-track");
    await page.getByRole("img", { name: stage1 }).waitFor();
    await page.getByRole("img", { name: stage2 }).waitFor();

    // Resume on a complete stage: the confirm says it continues this stage; after it the rollout stays there.
    await page.getByRole("button", { name: "Resume" }).click();
    const confirm = page.getByRole("dialog");
    await confirm.getByText(
      `The rollout continues Stage 1 (25 %) with its ${n} devices; resuming never widens it, even when this stage is complete.`,
    ).waitFor();
    await confirm.getByText(`Stage 2 (100 %) (${40 - n} more devices) starts only when you advance it`, {
      exact: false,
    })
      .waitFor();
    await axe("rollouts: resume confirmation");
    await confirm.getByRole("button", { name: "Resume rollout" }).click();
    await confirm.waitFor({ state: "hidden" });
    await page.locator(".page-sub").getByText("running", { exact: true }).waitFor();
    await page.waitForTimeout(1000);
    const resumed = await api.getRollout(rollout._id);
    assert.equal(resumed.state, "running");
    assert.equal(resumed.stage, 0, "resume must not advance a complete stage");
    assert.deepEqual(await bars.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label"))), [stage1, stage2]);

    // Retry the failed devices: named for what it does, and they count as pending again.
    await page.getByRole("button", { name: "Retry failed devices" }).click();
    await confirm.getByText(
      `${
        failing.length === 1 ? "1 failed device is" : `${failing.length} failed devices are`
      } offered jeecee-fw-3.0.xz again`,
      { exact: false },
    ).waitFor();
    await confirm.getByRole("button", { name: "Retry failed devices" }).click();
    await confirm.waitFor({ state: "hidden" });
    await page.getByRole("img", {
      name: `Stage 1, 25 %: ${n} devices: ${n - failing.length} installed, 0 failed, ${failing.length} pending`,
    }).waitFor();
    assert.equal((await api.getRollout(rollout._id)).counts.pending, failing.length);

    // Advance names the devices it reaches; then finishing the last stage with devices that never reported.
    await page.getByRole("button", { name: "Advance" }).click();
    await confirm.getByText(`Stage 2 (100 %) starts now: ${40 - n} more devices get jeecee-fw-3.0.xz.`).waitFor();
    await confirm.getByRole("button", { name: "Start stage 2" }).click();
    await confirm.waitFor({ state: "hidden" });
    await page.getByText("2 of 2 (100 %)").waitFor();
    const pending = 40 - (n - failing.length);
    await page.getByRole("button", { name: "Advance" }).click();
    await confirm.getByText(`In this stage ${pending} devices have not reported installing it.`).waitFor();
    await confirm.getByRole("button", { name: "Finish rollout" }).click();
    await confirm.waitFor({ state: "hidden" });
    await page.locator(".page-sub").getByText("finished", { exact: true }).waitFor();

    // Finished with pending devices: the last bar is not full, and promote says how many did not install it.
    const last = `Stage 2, 100 %: 40 devices: ${n - failing.length} installed, 0 failed, ${pending} pending`;
    await page.getByRole("img", { name: last }).waitFor();
    const widths = await page.getByRole("img", { name: last }).evaluate((track) =>
      [".stage-installed", ".stage-failed", ".stage-pending"].map((c) =>
        track.querySelector<HTMLElement>(c)!.getBoundingClientRect().width / track.getBoundingClientRect().width
      )
    );
    assert.ok(widths[0] + widths[1] < 0.9, `installed and failed fill ${widths} of the finished stage's bar`);
    assert.ok(widths[2] > 0.5, `pending fills ${widths[2]} of it`);
    await screenshot("rollouts-02b-finished-pending");
    await page.getByRole("button", { name: "Promote to default" }).click();
    await confirm.getByText("Promote jeecee-fw-3.0.xz with devices that have not installed it?").first().waitFor();
    await confirm.getByText(`Of the 40 devices of this rollout, ${pending} devices have not reported installing it.`)
      .waitFor();
    await axe("rollouts: promote confirmation");
    await confirm.getByRole("button", { name: "Don't promote" }).click();
    await confirm.waitFor({ state: "hidden" });
    assert.equal((await api.getRollout(rollout._id)).state, "finished");

    // The list: a bar per stage.
    await page.getByRole("link", { name: "Rollouts" }).click();
    await page.getByRole("heading", { name: "Rollouts" }).waitFor();
    await page.getByRole("link", { name: "jeecee-fw-3.0.xz" }).waitFor();
    assert.equal(await page.locator(".rollouts-table .stage-bar").count(), 2);
    await axe("rollouts: list");
    await screenshot("rollouts-03-list");

    // A failed device's screen shows its update status, and the firmware in effect with the rollout it comes from.
    await visit(`/devices/${failing[0].deviceId}`);
    await page.getByRole("heading", { name: `Device ${failing[0].deviceId}` }).waitFor();
    const card = page.locator(".p-card", { hasText: "Update status" });
    await card.getByText("failed", { exact: true }).waitFor();
    await card.getByText("Checksum mismatch after download").waitFor();
    await card.getByText("jeecee-fw-3.0.xz").waitFor();
    const inEffect = page.locator(".p-card", { hasText: "Firmware in effect" });
    await inEffect.getByRole("cell", { name: "jeecee-fw-3.0.xz", exact: true }).waitFor();
    await inEffect.getByText("this device is in its current stage", { exact: false }).waitFor();
    await axe("device: update status");
    await inEffect.getByRole("link", { name: "jeecee-fw-3.0.xz" }).click();
    await page.getByRole("heading", { name: "Rollout jeecee-fw-3.0.xz" }).waitFor();
    assert.ok(page.url().endsWith(`/rollouts/${rollout._id}`), page.url());
  },
);
