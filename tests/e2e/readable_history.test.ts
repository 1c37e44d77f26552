/**
 * History that reads as the operator acted (docs/REQUIREMENTS.md §17): the device, product type and firmware histories and the
 * audit log show changes as names and values, actions in words, every row naming its target, never an id; a row opens
 * to its full details with the mouse and the keyboard; the CSV keeps the raw fields.
 */
import assert from "node:assert/strict";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { assertAccessible } from "./a11y.ts";
import { checkInDevices, e2eTest, importTreatments, settled, treatment } from "./helpers.ts";

e2eTest("readable history: names and values, every target named, rows open to their details", async (c) => {
  const { page, visit, signIn, screenshot, api, srv } = c;
  await importTreatments(api, [treatment("Knee rehab", 2)]);
  const [knee] = await api.listTreatments();
  const type = await api.createProductType("Walker");
  const walker = await api.patchProductType({
    _id: type._id,
    name: "Walker",
    modules: [
      { name: "Base", isDefault: true, treatmentIds: [] },
      { name: "Pelvic floor", isDefault: false, treatmentIds: [knee._id] },
    ],
  });
  const pelvic = walker.modules.find((m) => m.name === "Pelvic floor")!;
  const tmp = await Deno.makeTempDir({ prefix: "history-e2e-" });
  const fw = await api.uploadFirmware(await fileSource(await makeXzFile(tmp, "fw-2.5.0.xz")));
  await Deno.remove(tmp, { recursive: true });
  await checkInDevices(srv, ["HIST-1"]);
  await api.patchDevice({ deviceId: "HIST-1", productTypeId: type._id });
  await api.patchDevice({ deviceId: "HIST-1", firmware: fw._id });
  await api.patchDevice({ deviceId: "HIST-1", moduleIds: [pelvic._id], additionalTreatmentIds: [knee._id] });
  const ids = [type._id, pelvic._id, fw._id, knee._id];
  const noIds = (text: string, where: string) => {
    for (const id of ids) assert.ok(!text.includes(id), `${where} shows the id ${id}:\n${text}`);
  };

  // The device's history: each change in words, newest first.
  await visit("/devices/HIST-1");
  await signIn();
  const history = page.getByRole("table", { name: "History" });
  await history.locator("tbody tr[data-seq]").nth(3).waitFor();
  const rows = history.locator("tbody tr[data-seq]");
  assert.match(
    await rows.nth(0).innerText(),
    /Device changed\s+Device HIST-1\s+Modules: Pelvic floor added · Additional treatments: Knee rehab added/,
  );
  assert.match(
    await rows.nth(1).innerText(),
    /Device changed\s+Device HIST-1\s+Custom firmware: none → fw-2\.5\.0\.xz/,
  );
  assert.match(await rows.nth(2).innerText(), /Device changed\s+Device HIST-1\s+Product type: none → Walker/);
  assert.match(await rows.nth(3).innerText(), /Device registered\s+Device HIST-1\s+Version: App 2\.4\.1/);
  noIds(await history.innerText(), "the device history");

  // A row opens to its full details: Enter and Space on the focused row, or a click.
  const second = rows.nth(1).getByRole("button");
  await second.focus();
  await page.keyboard.press("Enter");
  const details = history.getByRole("definition").filter({ hasText: "Custom firmware: none → fw-2.5.0.xz" });
  await details.waitFor();
  assert.equal(await second.getAttribute("aria-expanded"), "true");
  const entry = history.locator("dl.audit-entry");
  assert.match(await entry.innerText(), /Action\s+Device changed \(device\.update\)/);
  assert.match(await entry.innerText(), /Target\s+Device HIST-1/);
  assert.match(await entry.innerText(), new RegExp(`"firmware": "${fw._id}"`)); // the data as recorded, whole
  await settled(page);
  await assertAccessible(page, "device history, an entry open");
  await screenshot("history-01-device-entry-open");
  await page.keyboard.press(" ");
  await details.waitFor({ state: "detached" });
  assert.equal(await second.getAttribute("aria-expanded"), "false");
  await rows.nth(0).click();
  await history.locator("dl.audit-entry").waitFor();
  await rows.nth(0).click();
  await history.locator("dl.audit-entry").waitFor({ state: "detached" });

  // The product type's history names its modules.
  await visit(`/product_types/${type._id}`);
  const ptHistory = page.getByRole("table", { name: "History" });
  await ptHistory.locator("tbody tr[data-seq]").nth(1).waitFor();
  assert.match(
    await ptHistory.locator("tbody tr[data-seq]").first().innerText(),
    /Product type changed\s+Product type Walker\s+Modules: Base, Pelvic floor added/,
  );
  noIds(await ptHistory.innerText(), "the product type history");

  // The firmware history says which firmware each row is about.
  await visit("/device_firmwares");
  const fwHistory = page.getByRole("table", { name: "Firmware history" });
  await fwHistory.locator("tbody tr[data-seq]").first().waitFor();
  assert.match(
    await fwHistory.locator("tbody tr[data-seq]").first().innerText(),
    /Firmware uploaded\s+Firmware fw-2\.5\.0\.xz\s+Size: /,
  );
  noIds(await fwHistory.innerText(), "the firmware history");
  await screenshot("history-02-firmware");

  // The audit log in words; its CSV keeps the raw fields.
  await visit("/audit?targetId=HIST-1");
  const log = page.getByRole("table", { name: "Audit log" });
  await page.getByText("4 entries match", { exact: true }).waitFor();
  assert.match(await log.locator("tbody tr[data-seq]").nth(1).innerText(), /Custom firmware: none → fw-2\.5\.0\.xz/);
  noIds(await log.innerText(), "the audit log");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  const csv = await Deno.readTextFile((await download.path())!);
  assert.ok(csv.includes(fw._id), "the CSV keeps the firmware's id");
  assert.match(csv, /,device\.update,device,HIST-1,HIST-1,/);
});
