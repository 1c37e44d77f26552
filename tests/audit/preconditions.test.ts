/**
 * Audit of conditional writes, read from the route table: every route that takes If-Match has a GET of the same
 * path answering the ETag to send; hostile If-Match values are 400 (malformed) or 412 (well-formed but not current),
 * never a 500, and change nothing; the current ETag goes ahead.
 */
import assert from "node:assert/strict";
import { routeList } from "../../shared/routes/mod.ts";
import { samplesFor } from "./samples.ts";
import {
  assertNoInternalErrors,
  describe,
  Findings,
  pathOf,
  refused,
  send,
  type SendOptions,
  startAudit,
  stateTracker,
} from "./setup.ts";

const MALFORMED = [
  "",
  " ",
  "abc",
  "17",
  '"open',
  'W/"a" "b"',
  '*, "a"',
  '"a", *',
  'w/"a"',
  'W/ "a"',
  '"a";q=1',
  '"in"side"',
  '"tab\there"',
  "'single'",
];

Deno.test("audit: If-Match on conditional writes", async (t) => {
  await using s = await startAudit();
  const samples = samplesFor(s);
  // Writes before deletes, so each route still has its entity.
  const conditional = routeList.filter((r) => r.headers?.["If-Match"])
    .sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));

  await t.step("the table: If-Match routes answer 412 and have a GET of the same path with an ETag", () => {
    assert.deepEqual(conditional.map((r) => r.name).sort(), [
      "deleteDevice",
      "deleteProductType",
      "patchDevice",
      "patchDeviceType",
      "patchProductType",
    ]);
    for (const r of routeList) {
      assert.equal(
        Boolean(r.answers[412]),
        Boolean(r.headers?.["If-Match"]),
        `${r.name}: 412 without If-Match or back`,
      );
    }
    for (const r of conditional) {
      const get = routeList.find((g) => g.method === "GET" && g.path === r.path);
      assert.ok(get, `${r.name}: no GET ${r.path}`);
      const ok = get.answers[200];
      assert.ok(ok?.kind === "json" && ok.headers?.ETag, `${get.name}: the 200 answer does not document ETag`);
    }
  });

  for (const route of conditional) {
    await t.step(`${route.method} ${route.path}: hostile If-Match values change nothing`, async () => {
      const f = new Findings();
      const sample = samples[route.name as keyof typeof samples];
      const params = route.body.kind === "json" ? sample.json!.params : sample.probe!.params;
      const path = pathOf(route, params);
      const body = route.body.kind === "json" ? await sample.json!.base() : undefined;
      const get = routeList.find((g) => g.method === "GET" && g.path === route.path)!;
      const current = await send(s.srv, "GET", pathOf(get, params), { token: s.token });
      assert.equal(current.status, 200, describe(current));
      const etag = current.headers.get("etag")!;
      assert.match(etag, /^"[^"]*"$/);
      const call = (ifMatch: string, o: SendOptions = {}) =>
        send(s.srv, route.method, path, { token: s.token, json: body, headers: { "if-match": ifMatch }, ...o });
      const track = await stateTracker(f, s);

      for (const value of MALFORMED) {
        const label = `If-Match ${JSON.stringify(value)}`;
        const r = await call(value);
        refused(f, label, r, [400], { code: "invalid_request", field: "If-Match" });
        await track(label, r);
      }
      const stale = [
        '"0"',
        '"no-such-version"',
        `W/${etag}`,
        '"caf\xe9"',
        `"x", ${`W/${etag}`}, "y"`,
        Array.from({ length: 2000 }, (_, i) => `"v${i}"`).join(", "),
      ];
      for (const value of stale) {
        const label = `If-Match ${value.slice(0, 60)}`;
        const r = await call(value);
        const error = refused(f, label, r, [412], { code: "precondition_failed" });
        if (error) f.check(label, () => assert.match(error.msg, /changed by someone else/));
        await track(label, r);
      }
      f.done();

      const ok = await call(`"other", ${etag}`);
      assert.ok(ok.status === 200 || ok.status === 204, describe(ok));
      if (ok.status === 200) assert.notEqual(ok.headers.get("etag"), etag);
      const again = await call(etag);
      assert.equal(again.status, route.method === "DELETE" ? 404 : 412, describe(again));
    });
  }

  await t.step("no internal errors", () => assertNoInternalErrors(s.srv));
});
