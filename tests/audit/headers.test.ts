/**
 * Audit of headers: security headers on every kind of response, JSON 404s for unknown API paths, no CORS grant,
 * the web app on every client route with index.html uncached and hashed assets cached; method-override headers
 * are ignored.
 */
import assert from "node:assert/strict";
import { DEVICE_API_KEY } from "../../testing/server.ts";
import {
  assertNoInternalErrors,
  describe,
  Findings,
  refused,
  type Res,
  sane,
  send,
  type SendOptions,
  snapshot,
  startAudit,
  unchanged,
} from "./setup.ts";

Deno.test("audit: headers", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("security headers on every kind of response, SPA routes, caching", async () => {
    const f = new Findings();
    const checkHeaders = (label: string, r: Res) =>
      f.check(label, () => {
        const csp = r.headers.get("content-security-policy");
        assert.ok(csp, `no Content-Security-Policy (${r.status})`);
        const directives = new Map(
          csp.split(";").map((d) => d.trim()).filter(Boolean).map((d) => {
            const [name, ...values] = d.split(/\s+/);
            return [name.toLowerCase(), values] as const;
          }),
        );
        assert.deepEqual(directives.get("frame-ancestors"), ["'none'"], `frame-ancestors in CSP "${csp}"`);
        const scriptSrc = directives.get("script-src") ?? directives.get("default-src");
        assert.ok(scriptSrc, `neither script-src nor default-src in CSP "${csp}"`);
        assert.ok(!scriptSrc.includes("'unsafe-inline'"), `script-src allows 'unsafe-inline': "${csp}"`);
        assert.equal(r.headers.get("x-content-type-options"), "nosniff");
        assert.equal(r.headers.get("referrer-policy"), "no-referrer");
      });

    const get = (path: string, o: SendOptions = {}) => send(srv, "GET", path, o);
    const jsonCases: [string, Res][] = [
      ["GET /api/v1/devices", await get("/api/v1/devices", { token: s.token })],
      ["GET /api/v1/devices (401)", await get("/api/v1/devices")],
      ["GET /api/v1/devices?page=-1 (400)", await get("/api/v1/devices?page=-1", { token: s.token })],
      [
        "POST /api/v1/login (401)",
        await send(srv, "POST", "/api/v1/login", { json: { email: "a@b.c", password: "x" } }),
      ],
      ["GET /healthz", await get("/healthz")],
      ["GET /api/v1/treatment_images/:id", await get(`/api/v1/treatment_images/${s.imageId}`, { token: s.token })],
      [
        "GET /api/v1/device_firmwares/:id/file",
        await get(`/api/v1/device_firmwares/${s.fwA._id}/file`, { token: s.token }),
      ],
      [
        "GET /api/v1/device/dev-001/firmware",
        await get("/api/v1/device/dev-001/firmware", { token: DEVICE_API_KEY }),
      ],
      ["GET /api/v1/device/dev-001/config", await get("/api/v1/device/dev-001/config", { token: DEVICE_API_KEY })],
      ["GET /api/v1/treatments/%ZZ", await get("/api/v1/treatments/%ZZ", { token: s.token })],
    ];
    for (const [label, r] of jsonCases) {
      sane(f, label, r);
      checkHeaders(label, r);
    }

    // Unknown /api/ paths stay JSON 404s, whatever the method, never the web app.
    for (
      const [method, path, token] of [
        ["GET", "/api/v1/nope", s.token],
        ["POST", "/api/v1/nope", s.token],
        ["GET", "/api/v1/devices/dev-001/nope", s.token],
        ["DELETE", "/api/v1/treatments", s.token],
        ["PUT", "/api/v1/devices/dev-001", s.token],
        ["DELETE", "/api/v1/devices", s.token], // POST devices pre-authorizes (docs/REQUIREMENTS.md §11)
        ["PATCH", `/api/v1/device_firmwares/${s.fwA._id}`, s.token],
        ["OPTIONS", "/api/v1/devices", s.token],
        ["GET", "/api/nope", undefined],
        ["GET", "/api/v2/devices", undefined],
        ["GET", "/api/v1/device/dev-001/nope", DEVICE_API_KEY],
      ] as const
    ) {
      const r = await send(srv, method, path, { token });
      refused(f, `${method} ${path}`, r, [404, 405], {});
      checkHeaders(`${method} ${path}`, r);
    }

    // No CORS grant for another origin: the API is same-origin only.
    for (const method of ["GET", "OPTIONS"]) {
      const r = await send(srv, method, "/api/v1/devices", {
        token: s.token,
        headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
      });
      f.check(`${method} /api/v1/devices from another origin`, () => {
        const allow = r.headers.get("access-control-allow-origin");
        assert.ok(allow === null || allow === srv.url, `Access-Control-Allow-Origin: ${allow}`);
      });
    }

    // Every client route of the web app loads it on a direct visit; index.html is not cached.
    const routes = [
      "/",
      "/devices",
      "/devices/dev-001",
      "/devices/x",
      "/treatments",
      `/treatments/${s.treatmentIds[0]}`,
      "/treatments/x",
      "/product_types",
      `/product_types/${s.ptId}`,
      "/product_types/x",
      "/device_firmwares",
    ];
    let index = "";
    for (const path of routes) {
      const r = await get(path);
      f.check(`GET ${path}`, () => {
        assert.equal(r.status, 200, describe(r));
        assert.match(r.headers.get("content-type") ?? "", /^text\/html/);
        assert.match(r.text, /<script[^>]+src=/i, "not the app's index.html");
        assert.doesNotMatch(r.text, /<script(?![^>]*\bsrc=)[^>]*>\s*\S/i, "inline script in index.html");
        assert.match(r.headers.get("cache-control") ?? "", /no-cache|no-store/, "index.html is cacheable");
      });
      checkHeaders(`GET ${path}`, r);
      index = r.text;
    }

    // Hashed assets are cached for a year; an unknown asset is a 404 with the same headers.
    const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    f.check("index.html references hashed assets", () => assert.ok(assets.length > 0, index.slice(0, 300)));
    for (const asset of assets) {
      const r = await get(asset);
      f.check(`GET ${asset}`, () => {
        assert.equal(r.status, 200);
        assert.match(r.headers.get("cache-control") ?? "", /max-age=31536000/);
      });
      checkHeaders(`GET ${asset}`, r);
    }
    for (const path of ["/assets/App-ZZZZZZZZ.js", "/assets/..%2F..%2Fdeno.json", "/assets/%00.js"]) {
      const r = await get(path);
      f.check(`GET ${path}`, () => {
        assert.equal(r.status, 404, describe(r));
        assert.doesNotMatch(r.headers.get("cache-control") ?? "", /max-age=31536000/);
      });
      checkHeaders(`GET ${path}`, r);
    }
    f.done();
  });

  await t.step("method-override headers are ignored: a GET stays a GET", async () => {
    const f = new Findings();
    // Method-override headers are ignored: a GET stays a GET.
    for (const header of ["x-http-method-override", "x-http-method", "x-method-override"]) {
      const before = await snapshot(s);
      const r = await send(srv, "GET", "/api/v1/devices/dev-005", {
        token: s.token,
        headers: { [header]: "DELETE" },
      });
      f.check(`GET devices/dev-005 with ${header}: DELETE`, () => assert.equal(r.status, 200, describe(r)));
      unchanged(f, `GET devices/dev-005 with ${header}: DELETE`, before, await snapshot(s));
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
