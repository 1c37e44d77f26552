/**
 * Release integrity in the browser (docs/REQUIREMENTS.md §20), with RELEASE_APPROVALS=1: an admin registers a release
 * key made by openssl (a bad PEM's refusal shown in the dialog first); an operator uploads a firmware signed with
 * openssl at test time, picking the signature file and the key in the upload dialog; the card names the signature
 * and says "Awaiting approval", and tells the uploader why they cannot approve; a viewer gets no Approve; a second
 * operator approves (a wrong password refused in the dialog first); approved, it becomes the default; the admin revokes
 * the key behind a confirmation. axe on the new screen and dialogs, the release keys screen at 390 px.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { makeXzFile } from "../../testing/files.ts";
import { opensslKey, opensslSign } from "../../testing/release_keys.ts";
import { assertAccessible } from "./a11y.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, checkInDevices, e2eTest, pick, settled } from "./helpers.ts";

const card = (page: Page, name: string) => page.getByLabel(`Firmware ${name}`, { exact: true });

async function axe(page: Page, where: string) {
  await settled(page);
  await page.waitForTimeout(350);
  await assertAccessible(page, where);
}

e2eTest(
  "release integrity: a key added, a signed upload awaits a second person's approval, then becomes the default",
  async (c) => {
    const { page, visit, signIn, screenshot, api } = c;
    const dir = await Deno.makeTempDir({ prefix: "e2e-release-" });
    try {
      await api.createOperator({ email: "olga@example.com", role: "operator", password: "olga-pass-1" });
      await api.createOperator({ email: "piet@example.com", role: "operator", password: "piet-pass-1" });
      await api.createOperator({ email: "vic@example.com", role: "viewer", password: "vic-pass-1" });
      await checkInDevices(c.srv, ["rel-dev-1"]);
      const key = await opensslKey(dir, "ed25519", "release-ci");
      const fwPath = await makeXzFile(dir, "jeecee-fw-3.0.0.xz");
      const sigPath = `${dir}/jeecee-fw-3.0.0.xz.sig`;
      await Deno.writeFile(sigPath, Uint8Array.from(atob(await opensslSign(key, fwPath)), (ch) => ch.charCodeAt(0)));
      const dlg = page.getByRole("dialog");
      const as = async (email: string, password: string, path: string) => {
        await page.evaluate(() => localStorage.clear());
        await visit(path);
        await signIn(page, email, password);
      };

      // An admin adds the pipeline's key: a PEM that is no key is refused in the dialog, the real one is listed.
      await visit("/release_keys");
      await signIn();
      await page.getByRole("heading", { name: "Release keys" }).waitFor();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Release keys" }).waitFor();
      await page.getByText("No release keys yet").waitFor();
      await page.getByRole("button", { name: "Add release key" }).click();
      await dlg.getByLabel("Name").fill("release-ci");
      await dlg.getByLabel("Public key (PEM)").fill("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----");
      await dlg.getByRole("button", { name: "Add key" }).click();
      await dlg.locator(".release-key-refusal").getByText(/^Not added: /).waitFor();
      await axe(page, "add release key dialog with the server's refusal");
      await dlg.getByLabel("Public key (PEM)").fill(key.publicPem);
      await dlg.getByRole("button", { name: "Add key" }).click();
      await dlg.waitFor({ state: "hidden" });
      const [registered] = await api.listReleaseKeys();
      const short = registered.fingerprint.slice(0, 16).replace(/(.{4})(?=.)/g, "$1 ");
      const row = page.getByRole("row", { name: /release-ci/ });
      await row.getByText("Ed25519", { exact: true }).waitFor();
      await row.getByText(short).waitFor();
      await row.getByText("by admin@example.com").waitFor();
      await axe(page, "release keys screen");
      await screenshot("release-01-keys");
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole("button", { name: "Revoke release-ci" }).waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      const box = await page.getByRole("button", { name: "Revoke release-ci" }).boundingBox();
      console.log(`390 px: /release_keys is ${width} px wide`);
      assert.ok(width <= 390, `the release keys screen fits 390 px (${width} px)`);
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `Revoke is on screen: ${JSON.stringify(box)}`);
      await page.setViewportSize({ width: 1400, height: 900 });

      // The uploader signs in, picks the firmware, its signature file and the key; the upload awaits approval.
      await as("olga@example.com", "olga-pass-1", "/device_firmwares");
      await page.getByRole("button", { name: "Upload firmware" }).click();
      await dlg.getByLabel("Select .xz or .swu file").setInputFiles(fwPath);
      await dlg.getByLabel("Select signature file").setInputFiles(sigPath);
      await dlg.getByText("Signature read from jeecee-fw-3.0.0.xz.sig.").waitFor();
      await pick(page, dlg.locator(".p-dropdown"), `release-ci (Ed25519, ${short})`);
      await axe(page, "upload dialog with a signature");
      await screenshot("release-02a-upload-signed");
      await dlg.getByRole("button", { name: "Upload", exact: true }).click();
      await dlg.getByText("Upload successful").waitFor();
      await dlg.getByText(/Signed with release-ci \(Ed25519\)\. It awaits approval/).waitFor();
      await dlg.getByRole("button", { name: "Close", exact: true }).and(dlg.locator(".p-dialog-footer *")).click();
      const fw = card(page, "jeecee-fw-3.0.0.xz");
      await fw.getByText("Awaiting approval", { exact: true }).waitFor();
      await fw.getByText("Signed with release-ci (Ed25519)").waitFor();
      assert.equal(await fw.getByRole("button", { name: "Approve firmware jeecee-fw-3.0.0.xz" }).isDisabled(), true);
      await fw.getByText("You uploaded this firmware, so you cannot approve it").waitFor();
      assert.equal(await fw.getByRole("button", { name: "Set as default firmware" }).isDisabled(), true);
      await screenshot("release-02-awaiting-approval");
      const [stored] = await api.listFirmwares();
      assert.deepEqual(
        [stored.approval.state, stored.signature?.keyName, stored.uploadedBy],
        ["pending", "release-ci", "olga@example.com"],
      );

      // A viewer sees the state and why there is no Approve for them; the key screen's buttons say they are admins'.
      await as("vic@example.com", "vic-pass-1", "/device_firmwares");
      await fw.getByText("Awaiting approval", { exact: true }).waitFor();
      await fw.getByText("Approving needs the operator or admin role").waitFor();
      assert.equal(await fw.getByRole("button", { name: /^Approve/ }).count(), 0);
      await visit("/release_keys");
      await page.getByText("Only admins add and revoke release keys; you are signed in as viewer.").waitFor();
      assert.equal(await page.getByRole("button", { name: "Add release key" }).isDisabled(), true);

      // Before approval a device cannot be pinned to it: the choice is named and disabled.
      await as("piet@example.com", "piet-pass-1", "/devices/rel-dev-1");
      await page.locator(".p-card", { hasText: "Custom device firmware" }).locator(".p-dropdown").click();
      const option = page.locator(".p-dropdown-panel").getByRole("option", {
        name: "jeecee-fw-3.0.0.xz (awaiting approval)",
      });
      assert.equal(await option.getAttribute("aria-disabled"), "true");
      await page.keyboard.press("Escape");

      // A second operator approves: a wrong password is refused in the dialog (no sign-in dialog), then the right one.
      await visit("/device_firmwares");
      await fw.getByRole("button", { name: "Approve firmware jeecee-fw-3.0.0.xz" }).click();
      await dlg.getByText("“approved for release”").waitFor();
      await dlg.getByText(stored.sha256).waitFor();
      // Keyboard only: the dialog puts focus in the password field; Enter submits.
      await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.type === "password");
      await page.keyboard.type("not-my-password");
      await page.keyboard.press("Enter");
      await dlg.locator(".approve-refusal").getByText("Not approved: The password is incorrect").waitFor();
      assert.equal(await dlg.count(), 1, "only the approve dialog: the session did not end");
      assert.equal(await dlg.getByLabel("Your password").inputValue(), "", "the refused password is cleared");
      await axe(page, "approve dialog with the server's refusal");
      await screenshot("release-03-approve-refused");
      await dlg.getByLabel("Your password").fill("piet-pass-1");
      await page.keyboard.press("Enter");
      await dlg.waitFor({ state: "hidden" });
      await fw.getByText(/^Approved by piet@example\.com on .+, meaning “approved for release”$/).waitFor();
      assert.equal(await fw.getByText("Awaiting approval", { exact: true }).count(), 0);
      await screenshot("release-04-approved");

      // Approved, it can be released: set as default.
      await fw.getByRole("button", { name: "Set as default firmware" }).click();
      await dlg.getByRole("button", { name: "Set as default firmware" }).click();
      await fw.getByText("Default", { exact: true }).waitFor();
      const managed = (await api.listDeviceTypes()).find((t) => t.name.startsWith("jeecee_baby_"))!;
      assert.equal(managed.defaultFirmware, stored._id);

      // The admin revokes the key behind a confirmation that says what revoking does; what it signed keeps naming it.
      await as(ADMIN_EMAIL, ADMIN_PASSWORD, "/release_keys");
      await page.getByRole("button", { name: "Revoke release-ci" }).click();
      await dlg.getByText(/^Uploads signed with this key are refused from now on, at once and for good/).waitFor();
      await axe(page, "revoke release key confirmation");
      await dlg.getByRole("button", { name: "Revoke key" }).click();
      await page.getByRole("row", { name: /release-ci/ }).getByText("Revoked", { exact: true }).waitFor();
      assert.equal(await page.getByRole("button", { name: "Revoke release-ci" }).count(), 0);
      assert.ok((await api.listReleaseKeys())[0].revokedAt, "revoked on the server");
      await visit("/device_firmwares");
      await fw.getByText("Signed with release-ci (Ed25519)").waitFor();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
  { env: { RELEASE_APPROVALS: "1" } },
);
