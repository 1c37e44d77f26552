/** A multipart upload of more than 40 parts is refused saying so (it was reported as "field 'file' is missing"). */
import assert from "node:assert/strict";
import { makeXzFile } from "../../testing/files.ts";
import { makeNamedImportFile } from "../../testing/import_db.ts";
import { listFiles, startServer } from "../../testing/server.ts";
import { multipart } from "../helpers/hostile.ts";

Deno.test("uploads: more than 40 multipart parts is 400 'too many parts', 40 are read", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "upload-parts-" });
  try {
    const B = "----parts-boundary";
    const uploads = [
      { path: "/device_firmwares", name: "fw.xz", data: await Deno.readFile(await makeXzFile(dir, "fw.xz")) },
      {
        path: "/treatments/import",
        name: "t.sqlite3",
        data: await Deno.readFile(makeNamedImportFile(`${dir}/t.sqlite3`, ["Knee"])),
      },
    ];
    const post = async (path: string, parts: Parameters<typeof multipart>[1]) => {
      const res = await srv.fetch(`/api/v1${path}`, {
        method: "POST",
        token: api.token,
        headers: { "content-type": `multipart/form-data; boundary=${B}` },
        body: multipart(B, parts),
      });
      return { status: res.status, body: await res.json() };
    };
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `note${i}`, data: "x" }));
    for (const { path, name, data } of uploads) {
      for (
        const parts of [[...fields(40), { name: "file", filename: name, data }], [
          { name: "file", filename: name, data },
          ...fields(40),
        ]]
      ) {
        const res = await post(path, parts);
        assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, {
          error: "invalid_request",
          msg: "The multipart body has too many parts (at most 40).",
        });
      }
      assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
    }
    assert.deepEqual(await api.listFirmwares(), []);
    assert.deepEqual(await api.listTreatments(), []);

    for (const { path, name, data } of uploads) {
      const res = await post(path, [...fields(39), { name: "file", filename: name, data }]);
      assert.ok(res.status === 200 || res.status === 201, `${path}: ${JSON.stringify(res.body)}`);
    }
    assert.equal((await api.listFirmwares()).length, 1);
    assert.equal((await api.listTreatments()).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
