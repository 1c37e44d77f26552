/**
 * Audit of the device API: a refused check-in of an unknown device creates nothing, and the firmware download
 * answers hostile Range and conditional headers with 200, 206, 304 or 416 as HTTP range requests say.
 */
import assert from "node:assert/strict";
import { DEVICE_API_KEY } from "../../testing/server.ts";
import {
  assertNoInternalErrors,
  describe,
  Findings,
  refused,
  sane,
  send,
  snapshot,
  startAudit,
  unchanged,
} from "./setup.ts";

Deno.test("audit: device API", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("a refused check-in of an unknown device creates nothing", async () => {
    const f = new Findings();
    // A refused check-in of an unknown device creates nothing.
    for (
      const body of [
        {},
        { versionInfo: null },
        { versionInfo: { app: 1, os: null, channels: [] } },
        { versionInfo: { app: null, os: null, channels: "a" } },
        { versionInfo: { app: null, os: null, channels: [] }, deviceId: "dev-other" },
        { versionInfo: { app: "x".repeat(10_000), os: null, channels: [] } },
      ]
    ) {
      const before = await snapshot(s);
      const label = `POST device/dev-fresh/checkin ${JSON.stringify(body).slice(0, 60)}`;
      const r = await send(srv, "POST", "/api/v1/device/dev-fresh/checkin", { token: DEVICE_API_KEY, json: body });
      refused(f, label, r, [400], { code: "invalid_request" });
      unchanged(f, label, before, await snapshot(s));
    }
    f.done();
  });

  await t.step("firmware download: hostile Range and conditional headers", async () => {
    const f = new Findings();
    const url = "/api/v1/device/dev-001/firmware";
    const full = await send(srv, "GET", url, { token: DEVICE_API_KEY });
    assert.equal(full.status, 200, describe(full));
    const size = Number(full.headers.get("content-length"));
    const etag = full.headers.get("etag")!;
    const cases: [string, Record<string, string>, number[]][] = [
      ["bytes=abc", { range: "bytes=abc" }, [200, 416]],
      ["reversed", { range: "bytes=5-1" }, [200, 416]],
      ["several ranges", { range: "bytes=0-0,2-3" }, [200, 206]],
      ["bytes=-0", { range: "bytes=-0" }, [200, 416]],
      ["past the end", { range: `bytes=${size + 10}-` }, [416]],
      ["20 digits", { range: "bytes=99999999999999999999-" }, [200, 416]],
      ["huge end", { range: "bytes=0-99999999999999999999" }, [200, 206, 416]],
      ["huge suffix", { range: "bytes=-999999999" }, [200, 206]],
      ["negative", { range: "bytes=-1-2" }, [200, 416]],
      ["empty", { range: "" }, [200, 416]],
      // RFC 9110 §14.2: a server MUST ignore a Range with a unit it does not understand.
      ["unknown unit", { range: "items=0-1" }, [200]],
      ["garbage If-None-Match", { "if-none-match": '"nope", garbage, W/' }, [200]],
      ["If-None-Match *", { "if-none-match": "*" }, [304]],
      ["matching ETag", { "if-none-match": etag }, [304]],
      ["garbage If-Range", { range: "bytes=0-1", "if-range": "garbage" }, [200]],
      ["matching If-Range", { range: "bytes=0-1", "if-range": etag }, [206]],
    ];
    for (const [what, headers, statuses] of cases) {
      const r = await send(srv, "GET", url, { token: DEVICE_API_KEY, headers });
      const label = `GET ${url} [${what}]`;
      sane(f, label, r);
      f.check(label, () => assert.ok(statuses.includes(r.status), `expected ${statuses.join("/")}, got ${r.status}`));
      if (r.status === 416) {
        refused(f, label, r, [416], { code: "range_not_satisfiable" });
        f.check(label, () => assert.equal(r.headers.get("content-range"), `bytes */${size}`));
      }
      if (r.status === 206) {
        f.check(label, () => {
          const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(r.headers.get("content-range") ?? "");
          assert.ok(m, `Content-Range ${r.headers.get("content-range")}`);
          assert.equal(Number(m[3]), size);
          assert.equal(Number(r.headers.get("content-length")), Number(m[2]) - Number(m[1]) + 1);
        });
      }
      if (r.status === 200) f.check(label, () => assert.equal(Number(r.headers.get("content-length")), size));
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
