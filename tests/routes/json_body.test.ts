/**
 * A JSON body (server/validate.ts) is read whole when its length is declared and a chunk at a time when it is not;
 * both ways keep the 1 MiB limit, the UTF-8 rule and the same answers. Sent to a §6 check-in.
 */
import assert from "node:assert/strict";
import { DEVICE_KEY, refusal, testApp } from "./app.ts";

const MiB = 1_048_576;
const VERSION = { versionInfo: { app: "1.0.0", os: "5.10", channels: [] } };

/** The body as one chunk with its length declared, or as a stream of 64 KiB chunks (no length). */
const sent = (bytes: Uint8Array<ArrayBuffer>, declared: boolean): RequestInit => {
  const headers: Record<string, string> = { Authorization: `Bearer ${DEVICE_KEY}`, "Content-Type": "application/json" };
  if (declared) {
    return { method: "POST", headers: { ...headers, "Content-Length": String(bytes.length) }, body: bytes };
  }
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at += 65536));
    },
  });
  return { method: "POST", headers, body };
};

Deno.test("JSON body: declared or streamed, the same answers", async (t) => {
  await using built = await testApp();
  const checkin = (id: string, bytes: Uint8Array<ArrayBuffer>, declared: boolean) =>
    built.app.request(`/api/v1/device/${id}/checkin`, sent(bytes, declared));
  const text = (s: string) => new TextEncoder().encode(s);

  for (const declared of [true, false]) {
    await t.step(declared ? "length declared" : "streamed", async () => {
      const ok = await checkin(`json-body-${declared}`, text(JSON.stringify(VERSION)), declared);
      assert.equal(ok.status, 200, await ok.clone().text());
      assert.equal((await ok.json()).deviceId, `json-body-${declared}`);

      // Just over 1 MiB of valid JSON: 413, whichever way it comes.
      const big = text(JSON.stringify({ ...VERSION, pad: "x".repeat(MiB) }));
      assert.ok(big.length > MiB);
      assert.deepEqual(await refusal(await checkin("json-body-big", big, declared)), {
        status: 413,
        error: "too_large",
        msg: "The JSON body is larger than 1 MiB.",
      });

      const bad = new Uint8Array([...text('{"versionInfo": "'), 0xff, ...text('"}')]);
      assert.deepEqual(await refusal(await checkin("json-body-utf8", bad, declared)), {
        status: 400,
        error: "invalid_request",
        msg: "body: is not valid UTF-8.",
      });
      assert.deepEqual(await refusal(await checkin("json-body-json", text("{"), declared)), {
        status: 400,
        error: "invalid_request",
        msg: "body: is not valid JSON.",
      });
    });
  }
  // Nothing was written for the refused ones.
  assert.equal(await built.stores.deviceApi.credentials("json-body-big"), null);
});
