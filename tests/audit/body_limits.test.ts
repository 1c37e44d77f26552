/**
 * Audit of JSON body limits: deep nesting never yields a 500, a 2 MiB body is 413 on every JSON route of the route
 * table (declared or chunked), and a huge chunked body is refused without the server buffering it.
 */
import assert from "node:assert/strict";
import { routes } from "../../shared/routes/mod.ts";
import { type Json, setAt } from "../helpers/hostile.ts";
import { jsonRoute, jsonRoutes } from "./samples.ts";
import {
  assertNoInternalErrors,
  describe,
  Findings,
  refused,
  sane,
  send,
  sendText,
  snapshot,
  startAudit,
  stateTracker,
  unchanged,
} from "./setup.ts";

Deno.test("audit: JSON body limits", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("a deeply nested body never yields a 500", async () => {
    const f = new Findings();
    // 1 MiB allows ~100k levels: a recursive validator or serializer overflows its stack on such input.
    const deep = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    const deepArr = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    const ptBody = (await jsonRoute(s, routes.patchProductType).base()) as Record<
      string,
      Json
    >;
    const withTheme = (theme: string) => JSON.stringify({ ...ptBody, theme: "@@" }).replace('"@@"', theme);
    for (const depth of [1_000, 50_000]) {
      // [label, path, body, may the server accept it?] A deep theme is free-form data within 64 KiB.
      const cases: [string, string, string, boolean][] = [
        ["PATCH product_types theme", `/api/v1/product_types/${s.ptId}`, withTheme(deep(depth)), depth < 10_000],
        [
          "PATCH product_types theme array",
          `/api/v1/product_types/${s.ptId}`,
          withTheme(`{"a":${deepArr(depth)}}`),
          depth < 10_000,
        ],
        ["POST product_types", "/api/v1/product_types", `{"name":${deep(depth)}}`, false],
        ["PATCH devices", "/api/v1/devices/dev-002", `{"deviceId":"dev-002","moduleIds":${deepArr(depth)}}`, false],
      ];
      for (const [label, path, text, mayAccept] of cases) {
        const before = await snapshot(s);
        const method = label.split(" ")[0];
        const r = await send(srv, method, path, { token: s.token, body: text, contentType: "application/json" });
        sane(f, `${label} depth ${depth}`, r);
        if (r.status >= 400) unchanged(f, `${label} depth ${depth}`, before, await snapshot(s));
        else if (!mayAccept) f.add(`${label} depth ${depth}`, `accepted: ${describe(r)}`);
      }
    }
    // Put the theme back for the steps that follow.
    const r = await send(srv, "PATCH", `/api/v1/product_types/${s.ptId}`, { token: s.token, json: ptBody });
    assert.equal(r.status, 200, describe(r));
    f.done();
  });

  await t.step("a 2 MiB JSON body is 413 on every JSON route, with or without a Content-Length", async () => {
    const f = new Findings();
    const after = await stateTracker(f, s);

    const big = "x".repeat(2 * 1024 * 1024);
    for (const route of jsonRoutes(s)) {
      const body = JSON.stringify(setAt(await route.base(), ["pad"], big));
      const r1 = await sendText(s, route, body, "application/json");
      refused(
        f,
        `${route.label} [2 MiB]`,
        r1,
        route.login ? [401, 413] : [413],
        route.login ? {} : { code: "too_large" },
      );
      await after(`${route.label} [2 MiB]`, r1);
      // The same without a Content-Length (chunked): the limit still holds.
      const bytes = new TextEncoder().encode(body);
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 64 * 1024) c.enqueue(bytes.subarray(i, i + 64 * 1024));
          c.close();
        },
      });
      const r2 = await sendText(s, route, stream, "application/json");
      refused(f, `${route.label} [2 MiB chunked]`, r2, route.login ? [401, 413] : [413]);
      await after(`${route.label} [2 MiB chunked]`, r2);
    }
    f.done();
  });

  await t.step("the 1 MiB JSON limit holds while a chunked body streams (memory stays flat)", async () => {
    const f = new Findings();
    const peakKiB = async () => {
      const status = await Deno.readTextFile(`/proc/${srv.process.pid}/status`);
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]);
    };
    const TOTAL = 256 * 1024 * 1024;
    for (
      const [label, method, path, token, statuses] of [
        ["POST login (no token needed)", "POST", "/api/v1/login", undefined, [401, 413]],
        ["PATCH device_types", "PATCH", `/api/v1/device_types/${s.dtId}`, s.token, [413]],
      ] as const
    ) {
      const before = await peakKiB();
      let sent = 0;
      const te = new TextEncoder();
      const chunk = te.encode("x".repeat(1024 * 1024));
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(te.encode('{"email":"'));
        },
        pull(c) {
          if (sent >= TOTAL) {
            c.enqueue(te.encode('","password":"x"}'));
            c.close();
            return;
          }
          c.enqueue(chunk);
          sent += chunk.length;
        },
      });
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token) headers.authorization = `Bearer ${token}`;
      // The server may answer and close before the body is through: a send error is an acceptable end.
      const r = await fetch(`${srv.url}${path}`, { method, headers, body }).then(
        async (res) => ({ status: res.status, text: await res.text() }),
        (err) => ({ status: 0, text: String(err) }),
      );
      const grew = (await peakKiB()) - before;
      f.check(`${label}: ${sent >> 20} MiB streamed`, () => {
        if (r.status !== 0) assert.ok((statuses as readonly number[]).includes(r.status), `${r.status} ${r.text}`);
        assert.ok(
          grew < 64 * 1024,
          `the server's peak memory grew by ${grew >> 10} MiB: the body was buffered whole`,
        );
      });
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
