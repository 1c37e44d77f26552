/**
 * The CLI changes the device type only on the version it read: set-default, unset-default and upload --default send
 * If-Match with the ETag they looked up, and a change someone made in between is the server's 412 msg, exit 1.
 * A proxy between the CLI and the server records the requests and can slip another operator's change in just
 * before the CLI's PATCH arrives.
 */
import assert from "node:assert/strict";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { startServer, type TestServer } from "../../testing/server.ts";
import { runCli, show } from "./run_cli.ts";

interface Seen {
  method: string;
  path: string;
  ifMatch: string | null;
}

/** Forwards everything to the server; `beforePatch` runs before a PATCH of a device type is forwarded. */
function proxy(srv: TestServer) {
  const seen: Seen[] = [];
  let beforePatch: (() => Promise<void>) | null = null;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    seen.push({ method: req.method, path: url.pathname, ifMatch: req.headers.get("if-match") });
    if (req.method === "PATCH" && url.pathname.startsWith("/api/v1/device_types/") && beforePatch) await beforePatch();
    const body = req.body ? new Uint8Array(await req.arrayBuffer()) : undefined;
    const res = await fetch(`${srv.url}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body,
    });
    return new Response(res.body, { status: res.status, headers: res.headers });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    interleave(fn: (() => Promise<void>) | null) {
      beforePatch = fn;
    },
    patches: () => seen.filter((s) => s.method === "PATCH"),
    close: () => server.shutdown(),
  };
}

Deno.test("CLI: the device type is changed with If-Match; a change made in between is exit 1", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const p = proxy(srv);
  const env = { CONSOLE_URL: p.url, CONSOLE_TOKEN: api.token };
  const dir = await Deno.makeTempDir({ prefix: "cli-conditional-" });
  try {
    const fw1 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-1.xz")));
    const fw2 = await api.uploadFirmware(await fileSource(await makeXzFile(dir, "fw-2.xz")));
    const managed = async () => (await api.listDeviceTypes())[0];

    await t.step("set-default and unset-default send the ETag of the device type they read", async () => {
      const before = await managed();
      const set = await runCli(["firmware", "set-default", "fw-1.xz"], { env });
      assert.equal(set.code, 0, show(set));
      assert.deepEqual(p.patches().map((s) => s.ifMatch), [before.etag]);
      const afterSet = await managed();
      assert.equal(afterSet.defaultFirmware, fw1._id);
      const unset = await runCli(["firmware", "unset-default"], { env });
      assert.equal(unset.code, 0, show(unset));
      assert.deepEqual(p.patches().map((s) => s.ifMatch), [before.etag, afterSet.etag]);
    });

    await t.step("another operator's change between the read and the PATCH: 412 msg on stderr, exit 1", async () => {
      p.interleave(async () => {
        p.interleave(null);
        const current = await managed();
        await api.patchDeviceType({ _id: current._id, defaultFirmware: fw2._id }, { ifMatch: current.etag });
      });
      const r = await runCli(["firmware", "set-default", "fw-1.xz"], { env });
      assert.equal(r.code, 1, show(r));
      assert.match(
        r.stderr,
        /^error: Device type jeecee_baby_default was changed by someone else since you loaded it: reload it to see the current version, then apply your change again\.\n$/,
      );
      assert.equal((await managed()).defaultFirmware, fw2._id, "the other operator's default stays");

      p.interleave(async () => {
        p.interleave(null);
        await api.patchDeviceType({ _id: (await managed())._id, defaultFirmware: null });
      });
      const unset = await runCli(["firmware", "unset-default"], { env });
      assert.equal(unset.code, 1, show(unset));
      assert.match(unset.stderr, /was changed by someone else/);
    });

    await t.step("upload --default: a default set during the upload is not overwritten", async () => {
      p.interleave(async () => {
        p.interleave(null);
        await api.patchDeviceType({ _id: (await managed())._id, defaultFirmware: fw1._id });
      });
      const r = await runCli(["firmware", "upload", "--default", await makeXzFile(dir, "fw-3.xz")], { env });
      assert.equal(r.code, 1, show(r));
      assert.match(
        r.stderr,
        /^Uploading fw-3\.xz: done, .*\nerror: Uploaded fw-3\.xz \(\w+\) but could not make it the default: .*changed by someone else/m,
      );
      assert.equal((await managed()).defaultFirmware, fw1._id);
      assert.ok((await api.listFirmwares()).some((f) => f.name === "fw-3.xz"));
    });
  } finally {
    await p.close();
    await Deno.remove(dir, { recursive: true });
  }
});
