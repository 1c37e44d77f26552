/**
 * Audit of the firmware routes: upload refusals of their own (the size limit, a name already taken, even behind a
 * path), deletion of a firmware in use, and names from a hostile client kept exactly with a safe download header.
 */
import assert from "node:assert/strict";
import { multipart } from "../helpers/hostile.ts";
import {
  assertNoInternalErrors,
  checkRuleCases,
  describe,
  Findings,
  MAX_FIRMWARE_BYTES,
  refused,
  sane,
  send,
  type SendOptions,
  startAudit,
  stateTracker,
  xzBytes,
} from "./setup.ts";

Deno.test("audit: firmwares", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step(
    "an upload over MAX_FIRMWARE_BYTES or with a name already uploaded is refused, no file left",
    async () => {
      const f = new Findings();
      const after = await stateTracker(f, s);
      const firmwareFiles = async () => await srv.storedFirmwares();
      const fwBefore = await firmwareFiles();
      const B = "----audit-boundary";
      const mp = `multipart/form-data; boundary=${B}`;
      const u = { path: "/api/v1/device_firmwares", name: "new-fw.xz", data: xzBytes("new firmware") };
      const cases: [string, SendOptions, number[]][] = [];
      cases.push([
        "over MAX_FIRMWARE_BYTES",
        {
          body: multipart(B, [{
            name: "file",
            filename: u.name,
            data: new Uint8Array([...xzBytes(""), ...new Uint8Array(MAX_FIRMWARE_BYTES + 1024)]),
          }]),
          contentType: mp,
        },
        [413],
      ]);
      cases.push([
        "a name already uploaded",
        { body: multipart(B, [{ name: "file", filename: "fw-a.xz", data: u.data }]), contentType: mp },
        [409],
      ]);
      cases.push([
        "a name already uploaded, behind a path",
        { body: multipart(B, [{ name: "file", filename: "../../x/fw-a.xz", data: u.data }]), contentType: mp },
        [409],
      ]);
      for (const [what, opts, statuses] of cases) {
        const label = `POST ${u.path} [${what}]`;
        const r = await send(srv, "POST", u.path, { token: s.token, ...opts });
        refused(f, label, r, statuses);
        await after(label, r);
      }
      const fwAfter = await firmwareFiles();
      f.check("DATA_DIR/firmwares after the refused uploads", () => assert.deepEqual(fwAfter, fwBefore));
      f.done();
    },
  );

  await t.step("a firmware in use is not deleted: 409, nothing changed", async () => {
    const f = new Findings();
    await checkRuleCases(s, f, [
      ["delete a device's custom firmware", "DELETE", `/api/v1/device_firmwares/${s.fwA._id}`, null, 409],
      ["delete the default firmware", "DELETE", `/api/v1/device_firmwares/${s.fwB._id}`, null, 409],
    ]);
    f.done();
  });

  await t.step("firmware names from a hostile client: base name kept exactly, safe download header", async () => {
    const f = new Findings();
    const names: [string, string][] = [
      // (A double quote is sent as %22 by browsers: the multipart header itself has no escape for it.)
      ["🦄 it's; name=evil (1).xz", "🦄 it's; name=evil (1).xz"],
      ["Prüfung-Größe.xz", "Prüfung-Größe.xz"],
      ["C:\\Users\\x\\win.xz", "win.xz"],
      ["../../../../etc/cron.d/evil.xz", "evil.xz"],
      ["%2e%2e%2fenc.xz", "%2e%2e%2fenc.xz"],
      [`${"n".repeat(250)}.xz`, `${"n".repeat(250)}.xz`],
    ];
    for (const [sentName, stored] of names) {
      const label = `upload ${JSON.stringify(sentName).slice(0, 60)}`;
      const r = await send(srv, "POST", "/api/v1/device_firmwares", {
        token: s.token,
        body: multipart("fn", [{ name: "file", filename: sentName, data: xzBytes(sentName) }]),
        contentType: "multipart/form-data; boundary=fn",
      });
      sane(f, label, r);
      if (r.status !== 201) {
        f.add(label, `refused: ${describe(r)}`);
        continue;
      }
      const fw = r.json as { _id: string; name: string };
      f.check(label, () => assert.equal(fw.name, stored, `stored as ${JSON.stringify(fw.name)}`));
      const file = await fetch(`${srv.url}/api/v1/device_firmwares/${fw._id}/file`, {
        headers: { authorization: `Bearer ${s.token}` },
      });
      await file.body?.cancel();
      f.check(`${label}: download`, () => {
        assert.equal(file.status, 200);
        const cd = file.headers.get("content-disposition") ?? "";
        assert.match(cd, /^attachment;/);
        const star = /filename\*=UTF-8''([^;\s]+)/.exec(cd);
        assert.ok(star, `no filename* in ${cd}`);
        assert.equal(decodeURIComponent(star[1]), stored, `downloaded as ${decodeURIComponent(star[1])}`);
        // The quoted fallback holds no quote, backslash or non-ASCII that could break the header.
        const plain = /filename="([^"]*)"/.exec(cd);
        assert.ok(plain, `no filename in ${cd}`);
        assert.doesNotMatch(plain[1], /["\\]|[^\x20-\x7e]/);
      });
      const del = await send(srv, "DELETE", `/api/v1/device_firmwares/${fw._id}`, { token: s.token });
      f.check(`${label}: delete`, () => assert.equal(del.status, 204, describe(del)));
    }
    const left = await srv.storedFirmwares();
    const list = (await send(srv, "GET", "/api/v1/device_firmwares", { token: s.token })).json as { _id: string }[];
    f.check("firmware files match the list", () => assert.equal(left.length, list.length, left.join(", ")));
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
