import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ApiError } from "../../shared/client.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { bigXzFile, e2eTest, throttleUpload } from "./helpers.ts";

const card = (page: Page, name: string) => page.getByLabel(`Firmware ${name}`, { exact: true });
const dialog = (page: Page) => page.getByRole("dialog");

e2eTest("firmware upload shows progress in percent, then the card; wrong files are refused", async (c) => {
  const { page, visit, signIn, screenshot, api } = c;
  const dir = await Deno.makeTempDir({ prefix: "e2e-fw-" });
  try {
    await visit("/device_firmwares");
    await signIn();
    await page.getByRole("heading", { name: "Device firmwares" }).waitFor();
    await page.getByText(
      "No firmware files present. Upload one by clicking on the 'Upload firmware' button below.",
      { exact: true },
    ).waitFor();
    assert.equal(await page.getByRole("button", { name: "Unset default firmware" }).isDisabled(), true);
    await screenshot("firmwares-01-empty");

    await page.getByRole("button", { name: "Upload firmware" }).click();
    const dlg = dialog(page);
    await dlg.getByText("Upload firmware", { exact: true }).waitFor();
    const upload = dlg.getByRole("button", { name: "Upload", exact: true });
    assert.equal(await upload.isDisabled(), true);
    const input = dlg.getByLabel("Select .xz or .swu file");
    assert.equal(await input.getAttribute("accept"), ".xz,.swu");

    // A file of another type is refused in the dialog, before anything is sent.
    const txt = `${dir}/notes.txt`;
    await Deno.writeTextFile(txt, "not firmware");
    await input.setInputFiles(txt);
    await dlg.getByText("Only .xz or .swu files can be selected.").waitFor();
    assert.equal(await upload.isDisabled(), true);

    const big = await bigXzFile(dir, "jeecee-fw-2.0.0.xz", 6 * 1024 * 1024);
    await input.setInputFiles(big);
    await dlg.getByText("Selected file: jeecee-fw-2.0.0.xz", { exact: true }).waitFor();
    assert.equal(await upload.isDisabled(), false);

    await throttleUpload(page, 2 * 1024 * 1024);
    await upload.click();
    const bar = dlg.getByRole("progressbar");
    await bar.waitFor();
    // Real progress: a percentage strictly between 0 and 100 while the bytes go up.
    await dlg.getByText(/^Uploading… [1-9]\d?%$/).waitFor();
    assert.equal(await dlg.getByRole("button", { name: "Cancel", exact: true }).isDisabled(), true);
    assert.equal(await dlg.getByRole("button", { name: "Upload", exact: true }).isDisabled(), true);
    await page.keyboard.press("Escape");
    assert.equal(await dlg.isVisible(), true, "Escape must not close the dialog while uploading");
    await screenshot("firmwares-02-uploading");

    await dlg.getByText("Upload successful").waitFor({ timeout: 60_000 });
    await throttleUpload(page, null);
    assert.equal(await dlg.getByRole("button", { name: "Cancel" }).count(), 0);
    await screenshot("firmwares-03-upload-successful");
    await dlg.getByRole("button", { name: "Close", exact: true }).and(dlg.locator(".p-dialog-footer *")).click();
    await dlg.waitFor({ state: "hidden" });

    const stored = (await api.listFirmwares()).find((f) => f.name === "jeecee-fw-2.0.0.xz");
    assert.ok(stored, "the firmware is stored");
    assert.equal(stored.size, (await Deno.stat(big)).size);
    await card(page, "jeecee-fw-2.0.0.xz").getByText(/^Uploaded: /).waitFor();

    // The same name again: the server's 409 msg is shown under 'Upload failed'.
    await page.getByRole("button", { name: "Upload firmware" }).click();
    await dlg.getByLabel("Select .xz or .swu file").setInputFiles(big);
    await dlg.getByRole("button", { name: "Upload", exact: true }).click();
    await dlg.getByText("Upload failed").waitFor();
    await dlg.getByText(/already/i).waitFor();
    await screenshot("firmwares-04-upload-failed");
    await dlg.getByRole("button", { name: "Close", exact: true }).and(dlg.locator(".p-dialog-footer *")).click();
    // Closing reset the dialog: opening it again starts with no file.
    await page.getByRole("button", { name: "Upload firmware" }).click();
    await dlg.getByText("Select .xz or .swu file", { exact: true }).waitFor();
    await page.keyboard.press("Escape");
    await dlg.waitFor({ state: "hidden" });

    // The same bytes under another name: stored, and the dialog says which firmware already holds them.
    const copy = `${dir}/jeecee-fw-2.0.0-copy.xz`;
    await Deno.copyFile(big, copy);
    await page.getByRole("button", { name: "Upload firmware" }).click();
    await dlg.getByLabel("Select .xz or .swu file").setInputFiles(copy);
    await dlg.getByRole("button", { name: "Upload", exact: true }).click();
    await dlg.getByText("Upload successful").waitFor({ timeout: 60_000 });
    await dlg.getByText("The same file is already uploaded as jeecee-fw-2.0.0.xz.", { exact: true }).waitFor();
    await screenshot("firmwares-04b-duplicate-notice");
    await dlg.getByRole("button", { name: "Close", exact: true }).and(dlg.locator(".p-dialog-footer *")).click();
    await dlg.waitFor({ state: "hidden" });
    await card(page, "jeecee-fw-2.0.0-copy.xz").waitFor();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

e2eTest(
  "firmware default: set and unset with confirms (the count it reaches); delete says what it refuses first",
  async (c) => {
    const { page, visit, signIn, screenshot, api } = c;
    const dir = await Deno.makeTempDir({ prefix: "e2e-fw-" });
    try {
      const a = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-a-1.0.xz")));
      const b = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-b-1.1.xz")));
      const managed = (await api.listDeviceTypes()).find((t) => t.name.startsWith("jeecee_baby_"))!;

      await visit("/device_firmwares");
      await signIn();
      await card(page, a.name).waitFor();
      await card(page, b.name).waitFor();
      assert.equal(await page.getByText("Default", { exact: true }).count(), 0);
      const unset = page.getByRole("button", { name: "Unset default firmware" });
      assert.equal(await unset.isDisabled(), true);

      // Set default: the count of devices it reaches, "Keep the current default" changes nothing, the named button sets it.
      await card(page, a.name).getByRole("button", { name: "Set as default firmware" }).click();
      const dlg = dialog(page);
      await dlg.getByText(`Set default firmware to ${a.name}?`).waitFor();
      await dlg.getByText(
        "Are you sure you want to change the default firmware? After this change any device that will perform an update will get this firmware.",
      ).waitFor();
      await dlg.getByTestId("default-reach").getByText("0 devices", { exact: true }).waitFor();
      await dlg.getByRole("button", { name: "Start a staged rollout instead" }).waitFor();
      await screenshot("firmwares-05-confirm-default");
      await dlg.getByRole("button", { name: "Keep the current default" }).click();
      await dlg.waitFor({ state: "hidden" });
      assert.equal((await api.listDeviceTypes()).find((t) => t._id === managed._id)!.defaultFirmware, null);

      await card(page, a.name).getByRole("button", { name: "Set as default firmware" }).click();
      await dlg.getByRole("button", { name: "Set as default firmware" }).click();
      await card(page, a.name).getByText("Default", { exact: true }).waitFor();
      assert.equal(
        await card(page, a.name).getByRole("button", { name: "Set as default firmware" }).isDisabled(),
        true,
      );
      assert.equal(
        await card(page, b.name).getByRole("button", { name: "Set as default firmware" }).isDisabled(),
        false,
      );
      assert.equal(await unset.isDisabled(), false);
      assert.equal((await api.listDeviceTypes()).find((t) => t._id === managed._id)!.defaultFirmware, a._id);
      await screenshot("firmwares-06-default-set");

      // Deleting the default firmware would be refused by the server: the confirm says so before, its button is off.
      const refused = await api.deleteFirmware(a._id).then(() => null, (e: unknown) => e);
      assert.ok(refused instanceof ApiError && refused.status === 409);
      await card(page, a.name).getByRole("button", { name: `Delete firmware ${a.name}` }).click();
      await dlg.getByText(`Delete firmware ${a.name}?`).waitFor();
      await dlg.getByText("Are you sure you want to delete this firmware?").waitFor();
      await dlg.getByTestId("delete-impact").getByText(
        `It cannot be deleted now: it is the default firmware of device type ${managed.name}.`,
      ).waitFor();
      assert.ok(refused.msg.includes(`it is the default firmware of device type ${managed.name}`), refused.msg);
      assert.equal(await dlg.getByRole("button", { name: "Delete firmware" }).isDisabled(), true);
      await screenshot("firmwares-07-delete-refused");
      await dlg.getByRole("button", { name: "Keep firmware" }).click();
      await dlg.waitFor({ state: "hidden" });
      await card(page, a.name).waitFor();

      // Unset with its confirm.
      await unset.click();
      await dlg.getByText("Unset default firmware?").waitFor();
      await dlg.getByRole("button", { name: "Unset default firmware" }).click();
      await page.getByText("Default", { exact: true }).waitFor({ state: "detached" });
      await page.waitForFunction(() =>
        [...document.querySelectorAll("button")].some((b) => b.textContent?.includes("Unset default") && b.disabled)
      );
      assert.equal((await api.listDeviceTypes()).find((t) => t._id === managed._id)!.defaultFirmware, null);

      // Delete with confirm: "Keep firmware" keeps it, "Delete firmware" removes it.
      await card(page, b.name).getByRole("button", { name: `Delete firmware ${b.name}` }).click();
      await dlg.getByRole("button", { name: "Keep firmware" }).click();
      await card(page, b.name).waitFor();
      await card(page, b.name).getByRole("button", { name: `Delete firmware ${b.name}` }).click();
      await dlg.getByText(`Delete firmware ${b.name}?`).waitFor();
      await dlg.getByText("No device, default or rollout uses it.").waitFor();
      await dlg.getByRole("button", { name: "Delete firmware" }).click();
      await card(page, b.name).waitFor({ state: "detached" });
      assert.deepEqual((await api.listFirmwares()).map((f) => f.name), [a.name]);
      await screenshot("firmwares-08-after-delete");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
