import assert from "node:assert/strict";
import { encodeHex } from "./hex.ts";
import type { DeviceType, Firmware } from "../../shared/schemas/mod.ts";
import { makeXzFile } from "../../testing/files.ts";
import { startServer } from "../../testing/server.ts";
import { cpioArchive } from "../../testing/swu.ts";
import { cliJson, runCli, runCliOnTerminal, show, writeFakeXz } from "./run_cli.ts";

async function sha256(path: string): Promise<string> {
  return encodeHex(await crypto.subtle.digest("SHA-256", await Deno.readFile(path)));
}

Deno.test("CLI firmware commands", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const dir = await Deno.makeTempDir({ prefix: "cli-firmware-" });
  const fw1 = await makeXzFile(dir, "fw-1.0.0.xz", "firmware one");
  const fw2 = await makeXzFile(dir, "fw-2.0.0.xz", "firmware two");
  const managed = async () => (await api.listDeviceTypes()).find((d) => d.name === "jeecee_baby_default")!;
  let first: Firmware;

  await t.step("upload --json prints the new firmware, with the file's size and sha256", async () => {
    first = await cliJson<Firmware>(["firmware", "upload", fw1], { env });
    assert.equal(first.name, "fw-1.0.0.xz");
    assert.equal(first.size, (await Deno.stat(fw1)).size);
    assert.equal(first.sha256, await sha256(fw1));
    assert.deepEqual((await api.listFirmwares()).map((f) => f._id), [first._id]);
    assert.equal((await managed()).defaultFirmware, null);
  });

  await t.step("upload prints the firmware readably; not on a terminal, progress lines on stderr", async () => {
    const r = await runCli(["firmware", "upload", fw2], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Name:\s+fw-2\.0\.0\.xz/);
    assert.match(r.stdout, /Default:\s+no/);
    const lines = r.stderr.trimEnd().split("\n");
    assert.match(lines[0], /^Uploading fw-2\.0\.0\.xz: started \(\d+ B\)$/);
    assert.match(lines.at(-2)!, /^Uploading fw-2\.0\.0\.xz: 100 % \(\d+ B of \d+ B\)$/);
    assert.match(lines.at(-1)!, /^Uploading fw-2\.0\.0\.xz: done, \d+ B in [\d.]+ s \(.*\/s\)$/);
  });

  await t.step("the same name again: the server's 409 msg on stderr, exit 1", async () => {
    const r = await runCli(["firmware", "upload", fw1], { env });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^error: .*fw-1\.0\.0\.xz/m);
    assert.equal(r.stdout, "");
    assert.equal((await api.listFirmwares()).length, 2);
  });

  await t.step("the same bytes under another name: stored, with a note on stderr naming the first", async () => {
    const copy = `${dir}/fw-1.0.0-copy.xz`;
    await Deno.copyFile(fw1, copy);
    const r = await runCli(["firmware", "upload", copy], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Name:\s+fw-1\.0\.0-copy\.xz/);
    assert.ok(
      r.stderr.endsWith(`\nNote: the same file is already uploaded as fw-1.0.0.xz (${first._id}).\n`),
      r.stderr,
    );
    const again = `${dir}/fw-1.0.0-again.xz`;
    await Deno.copyFile(fw1, again);
    const json = await cliJson<Firmware & { duplicateOf?: string }>(["firmware", "upload", again], { env });
    assert.equal(json.duplicateOf, first._id);
    for (const f of (await api.listFirmwares()).filter((f) => f.name !== "fw-1.0.0.xz" && f.name !== "fw-2.0.0.xz")) {
      await api.deleteFirmware(f._id);
    }
  });

  await t.step("a damaged xz file: the server's 422 msg on stderr, exit 1, nothing stored", async () => {
    const bytes = await Deno.readFile(fw2);
    bytes[bytes.length - 1] ^= 0xff; // the stream footer's magic
    const damaged = `${dir}/fw-2.0.1.xz`;
    await Deno.writeFile(damaged, bytes);
    const r = await runCli(["firmware", "upload", damaged], { env });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^error: fw-2\.0\.1\.xz is not a valid xz file: .*footer/m);
    assert.equal(r.stdout, "");
    assert.equal((await api.listFirmwares()).length, 2);
  });

  await t.step("wrong extension, bad magic bytes, missing file, missing argument: exit 2, nothing sent", async () => {
    const notXzName = await makeXzFile(dir, "fw-3.0.0.bin");
    const badMagic = `${dir}/fw-4.0.0.xz`;
    await Deno.writeTextFile(badMagic, "plain text, not xz");
    const tooShort = `${dir}/fw-5.0.0.xz`;
    await Deno.writeFile(tooShort, new Uint8Array([0xfd, 0x37]));
    const cases: [string[], RegExp][] = [
      [["firmware", "upload", notXzName], /must end in \.xz/],
      [["firmware", "upload", badMagic], /not an xz file .*FD 37 7A 58 5A 00/],
      [["firmware", "upload", tooShort], /not an xz file/],
      [["firmware", "upload", `${dir}/missing.xz`], /no such file/],
      [["firmware", "upload", dir + "/"], /must end in \.xz|not a regular file/],
      [["firmware", "upload"], /missing required argument/],
      [["firmware", "upload", fw1, "extra"], /too many arguments|unknown/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { env });
      assert.equal(r.code, 2, `${args.join(" ")}: ${show(r)}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, "");
    }
    assert.equal((await api.listFirmwares()).length, 2);
  });

  await t.step("upload --default makes the new firmware the managed device type's default", async () => {
    const fw3 = await writeFakeXz(`${dir}/fw-3.0.0.XZ`);
    const created = await cliJson<Firmware>(["firmware", "upload", fw3, "--default"], { env });
    assert.equal(created.name, "fw-3.0.0.XZ");
    assert.equal((await managed()).defaultFirmware, created._id);
  });

  await t.step("firmware list --json is the server's list; the table marks the default", async () => {
    const list = await cliJson<Firmware[]>(["firmware", "list"], { env });
    assert.deepEqual(list, await api.listFirmwares());
    assert.deepEqual(list.map((f) => f.name).sort(), ["fw-1.0.0.xz", "fw-2.0.0.xz", "fw-3.0.0.XZ"]);
    const r = await runCli(["firmware", "list"], { env });
    assert.equal(r.code, 0, show(r));
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0], /^DEFAULT\s+ID\s+NAME\s+SIZE\s+UPLOADED\s+SIGNED BY\s+APPROVAL\s+SHA256$/);
    const marked = lines.filter((l) => l.startsWith("*"));
    assert.equal(marked.length, 1);
    assert.match(marked[0], /fw-3\.0\.0\.XZ/);
  });

  await t.step("set-default by name and by id prints the device type", async () => {
    const byName = await cliJson<DeviceType>(["firmware", "set-default", "fw-1.0.0.xz"], { env });
    assert.equal(byName.name, "jeecee_baby_default");
    assert.equal(byName.defaultFirmware, first._id);
    const second = (await api.listFirmwares()).find((f) => f.name === "fw-2.0.0.xz")!;
    const r = await runCli(["firmware", "set-default", second._id], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Default firmware of jeecee_baby_default is now fw-2\.0\.0\.xz/);
    assert.equal((await managed()).defaultFirmware, second._id);
  });

  await t.step("an unknown id or name is exit 1 and changes nothing", async () => {
    for (const args of [["firmware", "set-default", "fw-9.xz"], ["firmware", "delete", "nope"]]) {
      const r = await runCli(args, { env });
      assert.equal(r.code, 1, show(r));
      assert.match(r.stderr, /No firmware with id or name '(fw-9\.xz|nope)'/);
    }
    assert.equal((await api.listFirmwares()).length, 3);
  });

  await t.step("deleting the default is refused with the server's msg (exit 1)", async () => {
    const r = await runCli(["firmware", "delete", "fw-2.0.0.xz"], { env });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^error: Firmware fw-2\.0\.0\.xz cannot be deleted/);
  });

  await t.step("unset-default clears the default", async () => {
    const updated = await cliJson<DeviceType>(["firmware", "unset-default"], { env });
    assert.equal(updated.defaultFirmware, null);
    const r = await runCli(["firmware", "unset-default"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /jeecee_baby_default has no default firmware now/);
  });

  await t.step("delete by name and by id", async () => {
    const r = await runCli(["firmware", "delete", "fw-2.0.0.xz"], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^Deleted firmware fw-2\.0\.0\.xz/);
    const deleted = await cliJson<Firmware>(["firmware", "delete", first._id], { env });
    assert.equal(deleted._id, first._id);
    assert.deepEqual((await api.listFirmwares()).map((f) => f.name), ["fw-3.0.0.XZ"]);
  });

  await t.step(
    "an SWUpdate image (.swu): uploaded; a damaged one refused with the server's msg; a wrong magic",
    async () => {
      const entries = [{ name: "sw-description", data: new TextEncoder().encode('software = { version = "2.0"; };') }];
      const swu = cpioArchive(entries);
      await Deno.writeFile(`${dir}/therapy-2.0.swu`, swu);
      const created = await cliJson<Firmware>(["firmware", "upload", `${dir}/therapy-2.0.swu`], { env });
      assert.equal(created.name, "therapy-2.0.swu");
      assert.equal(created.size, swu.length);
      await Deno.writeFile(`${dir}/cut.swu`, swu.subarray(0, 200));
      const cut = await runCli(["firmware", "upload", `${dir}/cut.swu`], { env });
      assert.equal(cut.code, 1, show(cut));
      assert.match(cut.stderr, /^error: cut\.swu is not a valid SWUpdate image: .*truncated/m);
      await Deno.writeTextFile(`${dir}/text.swu`, "plain text");
      const text = await runCli(["firmware", "upload", `${dir}/text.swu`], { env });
      assert.equal(text.code, 2, show(text));
      assert.match(text.stderr, /not an SWUpdate image \(\.swu\)/);
      const name = await runCli(["firmware", "upload", `${dir}/image.cpio`], { env });
      assert.equal(name.code, 2, show(name));
      assert.match(name.stderr, /must end in \.xz or \.swu/);
      await api.deleteFirmware(created._id);
      assert.deepEqual((await api.listFirmwares()).map((f) => f.name), ["fw-3.0.0.XZ"]);
    },
  );

  await t.step(
    "on a terminal the upload shows a progress bar with bytes, percent and rate; --json shows none",
    async () => {
      const big = `${dir}/fw-big.xz`;
      await writeFakeXz(big, "x".repeat(3_000_000));
      const r = await runCliOnTerminal(["firmware", "upload", big], { env });
      assert.equal(r.code, 0, show(r));
      assert.match(r.stdout, /\[#{30}\] 100%\s+2\.9 MiB \/ 2\.9 MiB\s+[\d.]+ (B|KiB|MiB|GiB)\/s/);
      assert.match(r.stdout, /Name:\s+fw-big\.xz/);
      const quiet = await runCliOnTerminal(["--json", "firmware", "upload", await writeFakeXz(`${dir}/fw-q.xz`)], {
        env,
      });
      assert.equal(quiet.code, 0, show(quiet));
      assert.doesNotMatch(quiet.stdout, /%/);
      assert.equal(JSON.parse(quiet.stdout).name, "fw-q.xz");
    },
  );

  await Deno.remove(dir, { recursive: true });
});

Deno.test("CLI firmware upload refused as too large: exit 1 with the server's 413 msg", async () => {
  await using srv = await startServer({ env: { MAX_FIRMWARE_BYTES: "1000" } });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "cli-firmware-" });
  const file = await writeFakeXz(`${dir}/fw-large.xz`, "y".repeat(5000));
  const r = await runCli(["firmware", "upload", file], { env: { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token } });
  assert.equal(r.code, 1, show(r));
  // after the progress lines of what was sent (stderr is not a terminal here), no "done"
  assert.match(r.stderr, /^error: .*(MAX_FIRMWARE_BYTES|large|limit)/im);
  assert.doesNotMatch(r.stderr, /: done/);
  assert.equal(r.stdout, "");
  assert.deepEqual(await api.listFirmwares(), []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("CLI firmware with several jeecee_baby_ device types needs CONSOLE_DEVICE_TYPE", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cli-types-" });
  {
    await using _old = await startServer({ dataDir, keepData: true, env: { PRODUCT: "alpha" } });
  }
  await using srv = await startServer({ dataDir, env: { PRODUCT: "beta" } });
  const api = await srv.login();
  assert.deepEqual((await api.listDeviceTypes()).map((d) => d.name).sort(), ["jeecee_baby_alpha", "jeecee_baby_beta"]);
  const dir = await Deno.makeTempDir({ prefix: "cli-firmware-" });
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const file = await writeFakeXz(`${dir}/fw-1.xz`);

  const refused = await runCli(["firmware", "upload", file, "--default"], { env });
  assert.equal(refused.code, 1, show(refused));
  assert.match(refused.stderr, /jeecee_baby_alpha, jeecee_baby_beta.*CONSOLE_DEVICE_TYPE/);
  assert.deepEqual(await api.listFirmwares(), [], "a --default that cannot work refuses before the upload");

  const created = await cliJson<Firmware>(["firmware", "upload", file, "--default"], {
    env: { ...env, CONSOLE_DEVICE_TYPE: "jeecee_baby_beta" },
  });
  const types = await api.listDeviceTypes();
  assert.equal(types.find((d) => d.name === "jeecee_baby_beta")!.defaultFirmware, created._id);
  assert.equal(types.find((d) => d.name === "jeecee_baby_alpha")!.defaultFirmware, null);
  await Deno.remove(dir, { recursive: true });
});
