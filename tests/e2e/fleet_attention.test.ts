/**
 * What needs an operator's attention is found without searching (docs/REQUIREMENTS.md §11, §13, §16), on the demo fleet
 * (DEMO=1, DEVICE_AUTH=token: 305 devices, 5 waiting for admission, many not seen for more than 7 days): the menu's
 * badges and the overview's tiles lead to the filtered devices list; the pending list's labelled Accept and Reject are
 * in view at 1280 px without scrolling sideways; the set-default confirmation says how many devices it reaches and
 * offers a staged rollout instead. One server for all of it (the demo takes a while to seed).
 */
import assert from "node:assert/strict";
import type { Locator } from "playwright-core";
import { assertAccessible } from "./a11y.ts";
import { assertEventually, e2eTest, settled } from "./helpers.ts";

/** True when the element is inside the viewport and inside its scrolling box as shown (nothing to scroll to). */
async function inView(el: Locator): Promise<boolean> {
  return await el.evaluate((node) => {
    const r = node.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.right > innerWidth) return false;
    for (let p = node.parentElement; p; p = p.parentElement) {
      const box = p.getBoundingClientRect();
      const style = getComputedStyle(p);
      if (style.overflowX !== "visible" && (r.left < box.left || r.right > box.right)) return false;
    }
    return true;
  });
}

e2eTest(
  "fleet attention: badges and tiles lead to stale and pending devices; Accept/Reject in view; set-default reach",
  async (c) => {
    const { page, visit, signIn, screenshot, api } = c;
    await page.setViewportSize({ width: 1280, height: 800 });
    const o = (await api.overview()).devices;
    const waiting = (await api.listDevices({ admission: "pending", rowsPerPage: 100 })).data.map((d) => d.deviceId);
    assert.ok(
      o.pending > 0 && o.pending === waiting.length,
      `the demo has devices waiting for admission (${o.pending})`,
    );
    assert.ok(o.stale > 0, `the demo has stale devices (${o.stale})`);

    // The overview's tiles: stale and waiting for admission, each a link to the filtered list.
    await visit("/");
    await signIn();
    const tile = (label: string) => page.locator(".overview-card", { hasText: label });
    await tile("Not seen for more than 7 days").getByText(String(o.stale), { exact: true }).waitFor();
    await tile("Waiting for admission").getByText(String(o.pending), { exact: true }).waitFor();
    await settled(page);
    await page.waitForTimeout(350);
    await assertAccessible(page, "overview with attention tiles");
    await screenshot("attention-01-overview");
    await tile("Not seen for more than 7 days").click();
    await page.waitForURL(/\/devices\?.*seen=stale/);
    assert.equal(await page.getByLabel("Last check-in").locator("option:checked").innerText(), "More than 7 days ago");
    const stale = await api.listDevices({ seen: "stale", rowsPerPage: 1 });
    assert.equal(stale.total, o.stale);
    await page.getByText(`of ${o.stale}`, { exact: false }).first().waitFor();

    // The menu's badges: the pending one opens the admission list.
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: `${o.stale} stale: devices not seen for more than 7 days` }).waitFor();
    await nav.getByRole("link", { name: `${o.pending} pending: devices waiting for admission` }).click();
    await page.waitForURL(/\/devices\?.*admission=pending/);
    const rows = page.locator("tbody tr");
    await assertEventually(async () => assert.equal(await rows.count(), o.pending), 10_000);

    // At 1280 px every row's labelled Accept and Reject are in view, without scrolling the table sideways.
    for (const id of waiting) {
      for (const verb of ["Accept", "Reject"]) {
        const button = page.getByRole("button", { name: `${verb} ${id}` });
        assert.equal((await button.innerText()).trim(), verb);
        assert.ok(await inView(button), `${verb} ${id} is out of view at 1280 px`);
      }
    }
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true);
    await screenshot("attention-02-pending-1280");

    // Accepting one: named buttons in the confirmation, and the menu's badge counts one fewer.
    await page.getByRole("button", { name: `Accept ${waiting[0]}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Accept", exact: true }).click();
    await nav.getByRole("link", { name: `${o.pending - 1} pending: devices waiting for admission` }).waitFor();

    // Set as default: the confirmation says how many devices the default reaches, and offers a staged rollout.
    const managed = (await api.listDeviceTypes()).find((t) => t.name.startsWith("jeecee_baby_"))!;
    const other = (await api.listFirmwares()).find((f) => f._id !== managed.defaultFirmware)!;
    const reach = await api.deviceTypeReach(managed._id);
    await nav.getByRole("link", { name: "Device firmwares" }).click();
    const card = page.getByLabel(`Firmware ${other.name}`, { exact: true });
    await card.getByRole("button", { name: "Set as default firmware" }).click();
    const dlg = page.getByRole("dialog", { name: `Set default firmware to ${other.name}?` });
    await dlg.getByTestId("default-reach").getByText(
      `${reach.devices} devices of ${reach.total} get ${other.name} at their next check-in.`,
      { exact: false },
    ).waitFor();
    await screenshot("attention-03-set-default");
    await dlg.getByRole("button", { name: "Start a staged rollout instead" }).click();
    const create = page.getByRole("dialog", { name: "New rollout" });
    // The firmware is chosen already (the dropdown shows its name); nothing was changed.
    await create.locator(".p-dropdown-label", { hasText: other.name }).first().waitFor();
    assert.equal(
      (await api.listDeviceTypes()).find((t) => t._id === managed._id)!.defaultFirmware,
      managed.defaultFirmware,
    );
  },
  { env: { DEMO: "1", DEVICE_AUTH: "token" } },
);
