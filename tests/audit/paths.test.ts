/**
 * Audit of path parameters on every route of the route table that has one: unknown ids are 404, hostile ids
 * (long, NUL, traversal, bad percent-encoding, Unicode tricks) a 4xx, never a 500, never a change.
 */
import assert from "node:assert/strict";
import type { Json } from "../helpers/hostile.ts";
import { idRoutes } from "./samples.ts";
import {
  assertNoInternalErrors,
  authFor,
  Findings,
  rawPath,
  refused,
  type Res,
  send,
  startAudit,
  stateTracker,
} from "./setup.ts";

const decode = (raw: string) => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
};

const HOSTILE_IDS = [
  "x".repeat(5_000),
  "%00",
  "a%00b",
  "..%2F..%2Fetc%2Fpasswd",
  "..%5C..%5Cwindows",
  "%F0%9F%A6%84",
  "%E2%80%AE",
  "a%20b",
  "%20",
  "%ZZ",
  "%",
  "%C0%AF",
  "%FF%FE",
  "a'%20OR%20'1'='1",
  "%25",
  "%0A",
];

Deno.test("audit: path parameters of every route", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("unknown ids 404, hostile ids 4xx, never 500", async () => {
    const f = new Findings();
    const after = await stateTracker(f, s);
    type IdRoute = ReturnType<typeof idRoutes>[number];
    const call = (route: IdRoute, raw: string) =>
      send(srv, route.route.method, rawPath(route.route, raw), {
        ...authFor(s, route.route),
        ...(route.body ? { json: route.body(decode(raw)) as Json } : {}),
      });
    /** A refusal; a HEAD answer has no body, so only its status is checked. */
    const refusedBy = (route: IdRoute, label: string, r: Res, statuses: number[], opts = {}) => {
      if (route.route.method !== "HEAD") refused(f, label, r, statuses, opts);
      else {f.check(label, () =>
          assert.ok(statuses.includes(r.status), `expected ${statuses.join("/")}, got ${r.status}`));}
    };

    // Unknown but well-formed ids: 404 not_found (a route that creates what it does not know excepted).
    for (const route of idRoutes(s).filter((r) => !r.creates)) {
      for (const id of ["unknown-id-0001", "0", "null"]) {
        const label = `${route.route.method} ${rawPath(route.route, id)}`;
        const r = await call(route, id);
        refusedBy(route, label, r, [404], { code: "not_found" });
        await after(label, r);
      }
    }

    // Hostile ids: 4xx with an error body, never a 500, never a change. A route that creates what it does not
    // know (the device check-in) refuses a malformed id with a 400 naming the parameter.
    for (const route of idRoutes(s)) {
      for (const raw of HOSTILE_IDS) {
        const label = `${route.route.method} ${rawPath(route.route, raw).slice(0, 80)}`;
        const r = await call(route, raw);
        const param = Object.keys(route.route.params?.shape ?? {})[0];
        refusedBy(route, label, r, [400, 404], { field: route.creates && r.status === 400 ? param : undefined });
        await after(label, r);
      }
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
