/**
 * The release flow through the CLI (docs/REQUIREMENTS.md §20; docs/SHIPPING.md): a pipeline signs with openssl and
 * uploads with `firmware upload --signature --key` on its API token; the upload awaits approval (so --default is
 * refused); the token cannot approve; a second operator approves with `firmware approve`, the password on stdin.
 */
import assert from "node:assert/strict";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import { makeXzFile } from "../../testing/files.ts";
import { opensslKey, opensslSign } from "../../testing/release_keys.ts";
import { startServer } from "../../testing/server.ts";
import { runCli, show } from "./run_cli.ts";

Deno.test("CLI release flow: signed upload, pending, approval by a second operator", async (t) => {
  await using srv = await startServer({ env: { REQUIRE_SIGNED_FIRMWARE: "1", RELEASE_APPROVALS: "1" } });
  const admin = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "cli-release-" });
  await admin.createOperator({ email: "ci-owner@example.com", role: "operator", password: "ci-owner-pass" });
  await admin.createOperator({ email: "qa@example.com", role: "operator", password: "qa-pass-1234" });
  const owner = await srv.login("ci-owner@example.com", "ci-owner-pass");
  const { token: ciToken } = await owner.createApiToken({ name: "pipeline", scopes: ["firmware:write"] });
  const ci = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: ciToken };
  const [ed, p256] = await Promise.all([opensslKey(dir, "ed25519"), opensslKey(dir, "ecdsa-p256")]);
  await admin.createReleaseKey("CI release key", ed.publicPem);
  await admin.createReleaseKey("CI p256", p256.publicPem);
  const fw = await makeXzFile(dir, "fw-4.0.0.xz", "release four ".repeat(500));
  // What the pipeline does (docs/SHIPPING.md): the digest, then the signature file openssl writes.
  const sigPath = `${dir}/fw-4.0.0.sig`;
  await Deno.writeFile(sigPath, Uint8Array.from(atob(await opensslSign(ed, fw)), (c) => c.charCodeAt(0)));

  await t.step("upload --signature <file> --key <name>: signed, awaiting approval", async () => {
    const r = await runCli(["firmware", "upload", fw, "--signature", sigPath, "--key", "ci release KEY"], { env: ci });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Signed:\s+by CI release key \(ed25519\)/);
    assert.match(r.stdout, /Approval:\s+awaiting approval/);
  });

  await t.step("unsigned, or signed over other bytes: exit 1 with the server's reason, nothing stored", async () => {
    const other = await makeXzFile(dir, "fw-4.0.1.xz", "other");
    const unsigned = await runCli(["firmware", "upload", other], { env: ci });
    assert.equal(unsigned.code, 1, show(unsigned));
    assert.match(unsigned.stderr, /^error: This server accepts only signed firmware/m);
    const wrong = await runCli(["firmware", "upload", other, "--signature", sigPath], { env: ci });
    assert.equal(wrong.code, 1, show(wrong));
    assert.match(wrong.stderr, /No registered release key made the signature/);
    const usage = await runCli(["firmware", "upload", other, "--key", "CI p256"], { env: ci });
    assert.equal(usage.code, 2, show(usage));
    assert.deepEqual((await admin.listFirmwares()).map((f) => f.name), ["fw-4.0.0.xz"]);
  });

  await t.step("upload --signature <base64> --default: uploaded, the default refused naming the approval", async () => {
    const next = await makeXzFile(dir, "fw-4.1.0.xz", "release four one");
    const r = await runCli(
      ["firmware", "upload", next, "--signature", await opensslSign(p256, next), "--default"],
      { env: ci },
    );
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /could not make it the default: Firmware fw-4\.1\.0\.xz is awaiting approval/);
    assert.equal((await admin.listDeviceTypes())[0].defaultFirmware, null);
  });

  await t.step("approve: not with an API token; a wrong password exits 1; the second operator approves", async () => {
    const byToken = await runCli(["firmware", "approve", "fw-4.0.0.xz"], { env: ci, stdin: "ci-owner-pass\n" });
    assert.equal(byToken.code, 1, show(byToken));
    assert.match(byToken.stderr, /No API token may do this/);
    const qa = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: (await srv.login("qa@example.com", "qa-pass-1234")).token };
    const wrong = await runCli(["firmware", "approve", "fw-4.0.0.xz"], { env: qa, stdin: "not-it\n" });
    assert.equal(wrong.code, 1, show(wrong));
    assert.match(wrong.stderr, /^error: The password is incorrect; the firmware was not approved\.$/m);
    const r = await runCli(["--json", "firmware", "approve", "fw-4.0.0.xz"], { env: qa, stdin: "qa-pass-1234\n" });
    assert.equal(r.code, 0, show(r));
    const approved = JSON.parse(r.stdout) as Firmware;
    assert.deepEqual({ ...approved.approval, at: null }, {
      state: "approved",
      by: "qa@example.com",
      at: null,
      meaning: "approved for release",
    });
    const again = await runCli(["firmware", "approve", "fw-4.0.0.xz"], { env: qa, stdin: "qa-pass-1234\n" });
    assert.equal(again.code, 1, show(again));
    assert.match(again.stderr, /approved already/);
    const list = await runCli(["firmware", "list"], { env: qa });
    assert.equal(list.code, 0, show(list));
    assert.match(list.stdout, /fw-4\.0\.0\.xz .*CI release key\s+by qa@example\.com/);
    assert.match(list.stdout, /fw-4\.1\.0\.xz .*CI p256\s+awaiting/);
  });
});
