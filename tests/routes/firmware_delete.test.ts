/**
 * Deleting a firmware ties its row and its file (server/services/firmwares.ts): the row goes in its transaction; a
 * file that cannot be removed then (the bucket unreachable) is logged and left to the sweep of the next start, and the
 * delete still answers 204: the firmware is gone. A delete refused by the store (in use) keeps both.
 */
import assert from "node:assert/strict";
import { sweepFirmwareFiles } from "../../server/bootstrap.ts";
import { FilesUnavailableError } from "../../server/files/firmware_files.ts";
import { addFirmware } from "../../server/firmware_storage.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { testApp } from "./app.ts";

Deno.test("firmware delete: a file that cannot be removed is left to the sweep; the delete answers 204", async () => {
  let bucketDown = false;
  await using built = await testApp((ctx) => ({
    ...ctx,
    files: {
      ...ctx.files,
      remove: (id: string) =>
        bucketDown ? Promise.reject(new FilesUnavailableError("The bucket cannot be reached.")) : ctx.files.remove(id),
    },
  }));
  const token = await built.login();
  const { firmwares } = built.stores;
  const kept = await addFirmware(firmwares, built.ctx.files, "kept.xz", xzBytes("kept"));
  const gone = await addFirmware(firmwares, built.ctx.files, "gone.xz", xzBytes("gone"));

  bucketDown = true;
  const res = await built.request(`/api/v1/device_firmwares/${gone._id}`, { method: "DELETE", token });
  assert.equal(res.status, 204, await res.text());
  assert.equal(await firmwares.get(gone._id), null, "the row is gone");
  assert.ok(built.logged.some((l) => l.startsWith("WARNING") && l.includes(gone._id) && l.includes("sweep")));
  assert.deepEqual((await built.ctx.files.list()).sort(), [gone._id, kept._id].sort(), "the file is still there");

  bucketDown = false;
  await sweepFirmwareFiles(built.stores, built.ctx.files, () => {}, 0);
  assert.deepEqual(await built.ctx.files.list(), [kept._id], "the sweep removed the file with no row");

  // In use: the store refuses (409) and neither the row nor the file goes.
  await built.stores.deviceTypes.setDefaultFirmware((await built.stores.deviceTypes.list())[0]._id, kept._id);
  const refused = await built.request(`/api/v1/device_firmwares/${kept._id}`, { method: "DELETE", token });
  assert.equal(refused.status, 409);
  assert.ok(await firmwares.get(kept._id));
  assert.deepEqual(await built.ctx.files.list(), [kept._id]);
});
