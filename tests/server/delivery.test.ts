/**
 * Delivery: the bundle precompressed at build (brotli, gzip) with `Vary: Accept-Encoding`, JSON compressed on the fly
 * above a threshold (the streamed treatment list stays streamed and uncompressed), GET treatment_summaries, and a real
 * robots.txt.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { summarize, type Treatment } from "../../shared/schemas/treatment.ts";
import { generateTreatments, makeImportDb } from "../../testing/import_db.ts";
import { fileSource } from "../../testing/files.ts";
import { startServer } from "../../testing/server.ts";

/** A GET whose body arrives as sent (node:http does not decompress), with its chunks as they came. */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Uint8Array; chunks: number }>(
    (resolve, reject) => {
      http.get(url, { headers }, (res) => {
        const parts: Uint8Array[] = [];
        res.on("data", (d: Uint8Array) => parts.push(d));
        res.on("end", () => {
          const body = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
          let at = 0;
          for (const p of parts) body.set(p, at), at += p.byteLength;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, chunks: parts.length });
        });
        res.on("error", reject);
      }).on("error", reject);
    },
  );
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("delivery: precompressed bundle, compressed JSON, summaries, robots.txt", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const auth = { Authorization: `Bearer ${api.token}` };

  await t.step("scripts, styles and index.html: brotli, gzip or plain as accepted, with Vary", async () => {
    const index = await rawGet(`${srv.url}/devices`, { "Accept-Encoding": "identity" });
    assert.equal(index.headers["content-encoding"], undefined);
    assert.equal(index.headers["vary"], "Accept-Encoding");
    const html = text(index.body);
    const br = await rawGet(`${srv.url}/devices`, { "Accept-Encoding": "gzip, deflate, br" });
    assert.equal(br.headers["content-encoding"], "br");
    assert.equal(text(brotliDecompressSync(br.body)), html);

    // The boot script names main first among the start-up modules.
    const js = /name="start-modules" content="(\/assets\/main-[A-Z0-9]+\.js)/.exec(html)![1];
    const css = /href="(\/assets\/styles-[A-Z0-9]+\.css)"/.exec(html)![1];
    for (const path of [js, css]) {
      const plain = await rawGet(`${srv.url}${path}`, {});
      assert.equal(plain.headers["content-encoding"], undefined, path);
      const b = await rawGet(`${srv.url}${path}`, { "Accept-Encoding": "br;q=1, gzip;q=0.5" });
      assert.equal(b.headers["content-encoding"], "br");
      assert.equal(b.headers["vary"], "Accept-Encoding");
      assert.equal(b.headers["cache-control"], "public, max-age=31536000, immutable");
      assert.equal(Number(b.headers["content-length"]), b.body.byteLength);
      assert.deepEqual(brotliDecompressSync(b.body), Buffer.from(plain.body));
      assert.ok(
        b.body.byteLength < plain.body.byteLength / 3,
        `${path}: ${b.body.byteLength} of ${plain.body.byteLength}`,
      );
      const g = await rawGet(`${srv.url}${path}`, { "Accept-Encoding": "gzip, br;q=0" });
      assert.equal(g.headers["content-encoding"], "gzip");
      assert.deepEqual(gunzipSync(g.body), Buffer.from(plain.body));
    }
  });

  await t.step("robots.txt is a robots file, not the app", async () => {
    const res = await srv.fetch("/robots.txt");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await res.text(), "User-agent: *\nDisallow: /\n");
  });

  const dir = await Deno.makeTempDir({ prefix: "delivery-test-" });
  try {
    makeImportDb(`${dir}/t.sqlite3`, generateTreatments(300));
    await api.importTreatments(await fileSource(`${dir}/t.sqlite3`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }

  await t.step("JSON above the threshold is gzipped on the fly; small answers are not", async () => {
    const plain = await rawGet(`${srv.url}/api/v1/product_types`, { ...auth, "Accept-Encoding": "gzip" });
    assert.equal(plain.headers["content-encoding"], undefined, "[] is below the threshold");
    assert.equal(text(plain.body), "[]");
    const list = await rawGet(`${srv.url}/api/v1/treatment_summaries`, { ...auth, "Accept-Encoding": "gzip, br" });
    assert.equal(list.headers["content-encoding"], "gzip");
    assert.match(list.headers["vary"] ?? "", /Accept-Encoding/);
    assert.equal(list.headers["content-length"], undefined);
    const summaries = JSON.parse(text(gunzipSync(list.body)));
    assert.equal(summaries.length, 300);
    const identity = await rawGet(`${srv.url}/api/v1/treatment_summaries`, { ...auth });
    assert.equal(identity.headers["content-encoding"], undefined);
    assert.deepEqual(JSON.parse(text(identity.body)), summaries);
  });

  await t.step("the streamed treatment list stays streamed, as it is", async () => {
    const plain = await rawGet(`${srv.url}/api/v1/treatments`, auth);
    const asked = await rawGet(`${srv.url}/api/v1/treatments`, { ...auth, "Accept-Encoding": "gzip" });
    assert.equal(asked.headers["content-encoding"], undefined);
    assert.equal(asked.headers["transfer-encoding"], "chunked");
    assert.ok(asked.chunks > 1, `${asked.chunks} chunk(s)`);
    assert.equal(text(asked.body), text(plain.body));
  });

  await t.step("summaries match the full list, summarized", async () => {
    const full = JSON.parse(text((await rawGet(`${srv.url}/api/v1/treatments`, auth)).body)) as Treatment[];
    assert.deepEqual(await api.listTreatmentSummaries(), full.map(summarize));
    assert.equal((await srv.fetch("/api/v1/treatment_summaries")).status, 401);
  });
});
