/**
 * Audit of JSON bodies on every JSON route of the route table: other content types, malformed JSON, unknown
 * members, every field with a wrong type, null or absent, and hostile strings. A refusal is a 4xx {error, msg}
 * naming the field and changes nothing; an acceptance stores exactly what was sent; never a 500.
 */
import assert from "node:assert/strict";
import {
  getAt,
  HOSTILE_STRINGS,
  type Json,
  type JsonPath,
  kindOf,
  paths,
  setAt,
  wrongTypes,
} from "../helpers/hostile.ts";
import { jsonRoutes } from "./samples.ts";
import {
  assertNoInternalErrors,
  Findings,
  refused,
  type Res,
  sane,
  sendText,
  snapshot,
  startAudit,
  unchanged,
} from "./setup.ts";

const dotted = (p: JsonPath) => p.filter((k) => typeof k === "string").join(".");
const fieldName = (p: JsonPath) => String([...p].reverse().find((k) => typeof k === "string") ?? "body");

Deno.test("audit: hostile JSON bodies on every JSON route", async (t) => {
  await using s = await startAudit();

  await t.step("hostile JSON bodies: 4xx {error,msg} naming the field, never 500, state unchanged", async () => {
    const f = new Findings();
    let last = await snapshot(s);
    const sent = new Map<string, number>();
    const after = async (label: string, r: Res) => {
      const now = await snapshot(s);
      if (r.status >= 400) unchanged(f, label, last, now);
      last = now;
      const route = label.slice(0, label.indexOf(" ["));
      sent.set(route, (sent.get(route) ?? 0) + 1);
    };

    for (const route of jsonRoutes(s)) {
      const L = (what: string) => `${route.label} [${what}]`;
      /** The statuses a refusal of a body that must be refused may carry, and the field its msg must name. */
      const mustRefuse = (label: string, r: Res, field?: string) => {
        if (route.login) refused(f, label, r, [401, 429]);
        else refused(f, label, r, [400], { code: "invalid_request", field });
      };

      // Content types other than JSON, with a valid body.
      const valid = JSON.stringify(await route.base());
      for (
        const type of [
          undefined,
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/xml",
          "application/jsonp",
        ]
      ) {
        const r = await sendText(s, route, valid, type);
        if (route.login) refused(f, L(`content-type ${type}`), r, [401, 415, 400]);
        else refused(f, L(`content-type ${type}`), r, [415, 400]);
        await after(L(`content-type ${type}`), r);
      }

      // Malformed JSON and non-object bodies.
      for (
        const text of [
          "",
          "{",
          "{'a': 1}",
          "nul",
          "[1,]",
          '{"a":1}}',
          valid.slice(0, -1),
          "\u0000",
          "null",
          "[]",
          `[${valid}]`,
          '"a string"',
          "42",
          "true",
          "{}",
        ]
      ) {
        const r = await sendText(s, route, text, "application/json");
        mustRefuse(L(`body ${JSON.stringify(text.slice(0, 40))}`), r);
        await after(L(`body ${text.slice(0, 40)}`), r);
      }

      // Unknown members, at the top and in every nested object (but not inside the free-form theme).
      const base = await route.base();
      const objects: JsonPath[] = [[], ...paths(base).filter((p) => kindOf(getAt(base, p)) === "object")];
      for (const p of objects) {
        if (route.free?.some((prefix) => `${dotted(p)}.`.startsWith(prefix))) continue;
        const body = setAt(base, [...p, "unknown_member"], 1);
        const r = await sendText(s, route, JSON.stringify(body), "application/json");
        mustRefuse(L(`unknown member at ${p.join(".") || "top"}`), r, "unknown_member");
        await after(L(`unknown member at ${p.join(".")}`), r);
      }
      {
        const text = `{"__proto__": {"admin": true}, ${valid.slice(1)}`;
        const r = await sendText(s, route, text, "application/json");
        mustRefuse(L("__proto__ member"), r, "__proto__");
        await after(L("__proto__ member"), r);
      }

      // Every field: a wrong type, null where not nullable, absent where required.
      for (const p of paths(base)) {
        const key = dotted(p);
        if (route.free?.some((prefix) => key.startsWith(prefix))) continue;
        const field = fieldName(p);
        const value = getAt(base, p);
        const cases: [string, Json | undefined][] = wrongTypes(kindOf(value)).map((v) => [JSON.stringify(v), v]);
        if (!route.nullable.includes(key)) cases.push(["null", null]);
        if (typeof p[p.length - 1] === "string" && !route.optional.includes(key)) cases.push(["absent", undefined]);
        for (const [what, v] of cases) {
          const current = await route.base();
          if (getAt(current, p) === undefined) continue; // the path moved with the state
          const r = await sendText(s, route, JSON.stringify(setAt(current, p, v)), "application/json");
          mustRefuse(L(`${p.join(".")} = ${what}`), r, route.login ? undefined : field);
          await after(L(`${p.join(".")} = ${what}`), r);
        }
      }

      // Every string: hostile values. Accepted or refused, never a 500; a refusal names the field; an
      // acceptance stores exactly what was sent (names trimmed).
      for (const p of paths(base).filter((p) => typeof getAt(base, p) === "string")) {
        const field = fieldName(p);
        for (const { label, value } of HOSTILE_STRINGS) {
          const current = await route.base();
          if (typeof getAt(current, p) !== "string") continue;
          const what = L(`${p.join(".")} = ${label}`);
          const r = await sendText(s, route, JSON.stringify(setAt(current, p, value)), "application/json");
          sane(f, what, r);
          if (r.status >= 400 && r.status < 500) {
            if (route.login) refused(f, what, r, [401, 429]);
            else if (r.status !== 409 && !route.fixedMsg) refused(f, what, r, [400], { field });
          } else if (r.status < 300 && route.echo) {
            const entity = await route.echo(r);
            const expected = field === "name" ? value.trim() : value;
            f.check(what, () =>
              assert.deepEqual(
                getAt(entity, p),
                expected,
                `accepted (${r.status}) but stored ${JSON.stringify(getAt(entity, p))?.slice(0, 80)}`,
              ));
          }
          await after(what, r);
        }
      }
    }
    // Every route saw its share of hostile bodies (the loops above cannot silently skip a route).
    for (const route of jsonRoutes(s)) {
      f.check(
        route.label,
        () => assert.ok((sent.get(route.label) ?? 0) >= 40, `only ${sent.get(route.label)} requests`),
      );
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(s.srv));
});
