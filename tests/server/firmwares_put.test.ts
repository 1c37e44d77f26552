/**
 * The raw-body firmware upload (PUT /device_firmwares/files/:name, application/octet-stream): the same checks,
 * digests, signature fields (as headers) and audit entry as the multipart form, and every refusal stores nothing.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ApiError } from "../../shared/client.ts";
import { bytesSource, fileSource, makeXzFile } from "../../testing/files.ts";
import { opensslKey, opensslSign } from "../../testing/release_keys.ts";
import { brokenXz, xzOfSize } from "../../testing/xz_fixtures.ts";
import { listFiles, startServer, type TestServer } from "../../testing/server.ts";

const digest = (alg: string, bytes: Uint8Array) => createHash(alg).update(bytes).digest("hex");

async function put(
  srv: TestServer,
  token: string,
  name: string,
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) {
  const res = await srv.fetch(`/api/v1/device_firmwares/files/${name}`, {
    method: "PUT",
    token,
    headers: { "Content-Type": "application/octet-stream", ...headers },
    body,
  });
  return { status: res.status, json: await res.json() };
}

Deno.test("raw-body firmware upload: same checks, digests, signature and audit as the form", async (t) => {
  await using srv = await startServer({ env: { MAX_FIRMWARE_BYTES: String(1 << 20) } });
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "fw-put-" });
  const unchanged = async (before: unknown) => {
    assert.deepEqual(await api.listFirmwares(), before);
    assert.equal((await srv.storedFirmwares()).length, (before as unknown[]).length);
    assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
  };

  await t.step("201: the entity with the file's size and digests; audited as the form's upload", async () => {
    const path = await makeXzFile(dir, "raw one.xz", "raw firmware ".repeat(5000));
    const bytes = await Deno.readFile(path);
    const fw = await api.putFirmware(await fileSource(path));
    assert.equal(fw.name, "raw one.xz");
    assert.equal(fw.size, bytes.byteLength);
    assert.equal(fw.sha256, digest("sha256", bytes));
    assert.deepEqual(await srv.storedFirmwares(), [`${fw._id}.xz`]);
    const download = await srv.fetch(`/api/v1/device_firmwares/${fw._id}/file`, { token: api.token });
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), bytes);
    // The same bytes by the form: the same digests, and the same audit entry but for the id.
    const form = await api.uploadFirmware(bytesSource("form.xz", bytes));
    assert.equal(form.duplicateOf, fw._id);
    assert.equal(form.sha256, fw.sha256);
    const { data } = await api.listAudit({ action: "firmware.upload" });
    const byTarget = (id: string) => data.find((e) => e.target?.id === id)!;
    const [raw, multipart] = [byTarget(fw._id), byTarget(form._id)];
    assert.ok(raw && multipart);
    assert.deepEqual(raw.actor, multipart.actor);
    assert.deepEqual(Object.keys(raw.details ?? {}).sort(), Object.keys(multipart.details ?? {}).sort());
  });

  await t.step("the refusals of the form, nothing stored", async () => {
    const before = await api.listFirmwares();
    const xz = xzOfSize(4096);
    const cases: [string, Uint8Array<ArrayBuffer>, Record<string, string>, number, RegExp][] = [
      ["ok.xz", xz, { "Content-Type": "multipart/form-data; boundary=x" }, 415, /octet-stream/],
      ["ok.xz", xz, { "Content-Type": "application/json" }, 415, /octet-stream/],
      ["firmware.bin", xz, {}, 400, /\.xz/],
      ["..%2Fescape.xz", xz, {}, 400, /no path/],
      ["fake.xz", new TextEncoder().encode("not xz at all"), {}, 415, /xz/],
      ["empty.xz", new Uint8Array(), {}, 415, /xz/],
      ["cut.xz", brokenXz.truncated(xzOfSize(64 * 1024)), {}, 422, /truncated|ends before/],
      ["flip.xz", brokenXz.flippedMidBlock(xzOfSize(64 * 1024)), {}, 422, /corrupt/],
      ["raw one.xz", xz, {}, 409, /raw one\.xz/],
      ["x%5C..%5Cy.xz", xz, {}, 400, /no path/],
      ["%20.xz", xz, {}, 400, /name/],
      ["big.xz", xzOfSize((1 << 20) + 4), {}, 413, /MAX_FIRMWARE_BYTES/],
      ["sig.xz", xz, { "X-Firmware-Signature": "not base64 !" }, 422, /base64|signature/],
    ];
    for (const [name, body, headers, status, msg] of cases) {
      const res = await put(srv, api.token, name, body, headers).catch((err) => ({ status: 0, json: err }));
      assert.equal(res.status, status, `${name} ${JSON.stringify(headers)}: ${JSON.stringify(res.json)}`);
      assert.match(res.json.msg, msg, name);
    }
    // No Content-Type at all (curl -T) is taken as octet-stream: here refused for its name only.
    const untyped = await srv.fetch("/api/v1/device_firmwares/files/raw%20one.xz", {
      method: "PUT",
      token: api.token,
      body: new Blob([xz]),
    });
    assert.equal(untyped.status, 409, await untyped.text());
    // A chunked body (no Content-Length) is refused as the form's is.
    const chunked = await put(srv, api.token, "chunked.xz", ReadableStream.from([xz]));
    assert.equal(chunked.status, 411);
    await unchanged(before);
  });

  await t.step("signed: X-Firmware-Signature and X-Firmware-Key-Id verified against the streamed digest", async () => {
    const key = await opensslKey(dir, "ed25519");
    const other = await opensslKey(dir, "ed25519");
    const made = await api.createReleaseKey("CI raw", key.publicPem);
    const path = await makeXzFile(dir, "signed.xz", "signed raw firmware");
    const before = await api.listFirmwares();
    const wrong = await api.putFirmware(await fileSource(path), undefined, {
      fields: { signature: await opensslSign(other, path), keyId: made._id },
    }).catch((e) => e);
    assert.ok(wrong instanceof ApiError && wrong.status === 422, String(wrong));
    await unchanged(before);
    const fw = await api.putFirmware(await fileSource(path), undefined, {
      fields: { signature: await opensslSign(key, path), keyId: made._id },
    });
    assert.equal(fw.signature?.keyId, made._id);
  });
});

Deno.test("raw-body upload of several MiB (read into one reused buffer): stored and digested byte for byte", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  // Not a multiple of any read or batch size: many reads into the same buffer, a partial last batch; on a bucket three
  // parts (5 + 5 + 1 MiB), the second filled while the first may be in flight (the read waits, its rest not yet copied).
  const bytes = xzOfSize(11 * (1 << 20) + 12_344, "crc64", 7);
  const { status, json } = await put(srv, api.token, "several.xz", bytes);
  assert.equal(status, 201, JSON.stringify(json));
  assert.equal(json.size, bytes.byteLength);
  assert.equal(json.sha256, digest("sha256", bytes));
  const download = await srv.fetch(`/api/v1/device_firmwares/${json._id}/file`, { token: api.token });
  assert.deepEqual(new Uint8Array(await download.arrayBuffer()), bytes);
});
