/**
 * Audit of every multipart upload route of the route table: other content types, the wrong field, two files, no
 * file, broken multipart, bad names and contents are a 4xx that leaves no file behind and changes nothing.
 */
import assert from "node:assert/strict";
import { multipart } from "../helpers/hostile.ts";
import { uploadRoutes } from "./samples.ts";
import {
  assertNoInternalErrors,
  Findings,
  refused,
  send,
  type SendOptions,
  startAudit,
  stateTracker,
} from "./setup.ts";

Deno.test("audit: multipart misuse on every upload route", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("multipart misuse is 4xx and leaves no file behind", async () => {
    const f = new Findings();
    const after = await stateTracker(f, s);
    const firmwareFiles = async () => await srv.storedFirmwares();
    const fwBefore = await firmwareFiles();
    const B = "----audit-boundary";
    const mp = `multipart/form-data; boundary=${B}`;
    for (const u of uploadRoutes(s)) {
      const data = await u.data();
      const wrongField = u.field === "upload" ? "file" : "upload";
      const cases: [string, SendOptions, number[]][] = [
        ["JSON body", { json: { file: "x" } }, [415]],
        ["text/plain body", { body: "file=x", contentType: "text/plain" }, [415]],
        ["no content type", { body: data }, [415, 400]],
        ["urlencoded", { body: "file=abc", contentType: "application/x-www-form-urlencoded" }, [415, 400]],
        [
          "wrong field",
          { body: multipart(B, [{ name: wrongField, filename: u.name, data }]), contentType: mp },
          [
            400,
          ],
        ],
        [
          "two files",
          {
            body: multipart(B, [{ name: u.field, filename: u.name, data }, {
              name: u.field,
              filename: `2${u.name}`,
              data: data,
            }]),
            contentType: mp,
          },
          [400],
        ],
        ["no file", { body: multipart(B, [{ name: "other", data: "value" }]), contentType: mp }, [400]],
        ["file as a text field", { body: multipart(B, [{ name: u.field, data: "value" }]), contentType: mp }, [400]],
        ["empty multipart", { body: `--${B}--\r\n`, contentType: mp }, [400]],
        ["empty body", { body: "", contentType: mp }, [400]],
        ["missing boundary", {
          body: multipart(B, [{ name: u.field, filename: u.name, data }]),
          contentType: "multipart/form-data",
        }, [
          400,
          415,
        ]],
        [
          "wrong boundary",
          { body: multipart(B, [{ name: u.field, filename: u.name, data }]), contentType: `${mp}x` },
          [400],
        ],
        [
          "truncated",
          { body: multipart(B, [{ name: u.field, filename: u.name, data }], false), contentType: mp },
          [400],
        ],
        [
          "empty file name",
          { body: multipart(B, [{ name: u.field, filename: "", data }]), contentType: mp },
          [400, 415],
        ],
        [
          "control chars in name",
          { body: multipart(B, [{ name: u.field, filename: `a\u0001${u.name}`, data }]), contentType: mp },
          [400, 415],
        ],
        [
          "only a directory",
          { body: multipart(B, [{ name: u.field, filename: "../", data }]), contentType: mp },
          [400, 415],
        ],
        [
          "wrong extension",
          { body: multipart(B, [{ name: u.field, filename: "firmware.bin", data }]), contentType: mp },
          [415, 400],
        ],
        [
          "wrong content",
          {
            body: multipart(B, [{ name: u.field, filename: u.name, data: "not the right bytes at all" }]),
            contentType: mp,
          },
          [u.wrongContent],
        ],
        [
          "empty file",
          { body: multipart(B, [{ name: u.field, filename: u.name, data: "" }]), contentType: mp },
          [u.wrongContent],
        ],
      ];
      for (const [what, opts, statuses] of cases) {
        const label = `POST ${u.path} [${what}]`;
        const r = await send(srv, "POST", u.path, { token: s.token, ...opts });
        refused(f, label, r, statuses);
        await after(label, r);
      }
    }
    const fwAfter = await firmwareFiles();
    f.check("DATA_DIR/firmwares after the refused uploads", () => assert.deepEqual(fwAfter, fwBefore));
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
