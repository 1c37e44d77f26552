/**
 * hawkBit DDI in process (docs/REQUIREMENTS.md §18): a firmware stored before sha1 and md5 were kept gets them computed
 * once from its file and stored; links follow X-Forwarded-Host/Proto only when proxies are trusted; an upload keeps
 * all three digests from its one streaming pass.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { bytesSource } from "../../testing/files.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { DEVICE_KEY, PRODUCT, testApp } from "./app.ts";

const hex = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");
const GATEWAY = { authorization: `GatewayToken ${DEVICE_KEY}` };
const forwarded = { ...GATEWAY, "x-forwarded-host": "fleet.example.com", "x-forwarded-proto": "https" };

async function deployment(request: (path: string, init?: RequestInit) => Promise<Response>, headers = GATEWAY) {
  const poll = await (await request("/DEFAULT/controller/v1/dev-1", { headers })).json();
  const href: string = poll._links.deploymentBase.href;
  const res = await request(new URL(href).pathname, { headers });
  assert.equal(res.status, 200);
  return { href, body: await res.json() };
}

Deno.test("DDI: sha1 and md5 of an older firmware are computed once from its file and stored", async () => {
  await using t = await testApp();
  const bytes = xzBytes("older firmware ".repeat(1000));
  const put = t.ctx.files.put();
  await put.write(bytes);
  const { size, sha256 } = await put.finish();
  await put.commit();
  // As a firmware uploaded before the digests were kept: its row has none.
  await t.stores.firmwares.insert({
    _id: put.id,
    name: "old-1.0.xz",
    size,
    sha256,
    createdAt: new Date().toISOString(),
  });
  const managed = (await t.stores.deviceTypes.list()).find((d) => d.name === `jeecee_baby_${PRODUCT}`)!;
  await t.stores.deviceTypes.setDefaultFirmware(managed._id, put.id);

  const { body } = await deployment(t.request);
  const hashes = { sha1: hex("sha1", bytes), md5: hex("md5", bytes), sha256: hex("sha256", bytes) };
  assert.deepEqual(body.deployment.chunks[0].artifacts[0].hashes, hashes);
  const action = await t.stores.deviceApi.ddiAction("dev-1", Number(body.id));
  assert.deepEqual([action?.firmware.sha1, action?.firmware.md5], [hashes.sha1, hashes.md5], "stored");
});

Deno.test("DDI: an upload keeps sha1 and md5; links from X-Forwarded-* only with TRUST_PROXY", async () => {
  for (const trustProxy of [false, true]) {
    await using t = await testApp((ctx) => ({ ...ctx, config: { ...ctx.config, trustProxy } }));
    const api = await t.api();
    const bytes = xzBytes("uploaded ".repeat(700));
    const fw = await api.uploadFirmware(bytesSource("up-1.0.xz", bytes));
    const managed = (await api.listDeviceTypes()).find((d) => d.name === `jeecee_baby_${PRODUCT}`)!;
    await api.patchDeviceType({ _id: managed._id, defaultFirmware: fw._id });
    const stored = await t.stores.deviceApi.ddiAction(
      "dev-1",
      Number((await deployment(t.request)).body.id),
    );
    assert.deepEqual([stored?.firmware.sha1, stored?.firmware.md5], [hex("sha1", bytes), hex("md5", bytes)]);
    const { href } = await deployment(t.request, forwarded);
    const origin = trustProxy ? "https://fleet.example.com" : "http://localhost"; // app.request()'s own origin
    assert.ok(href.startsWith(`${origin}/DEFAULT/controller/v1/dev-1/deploymentBase/`), href);
  }
});
