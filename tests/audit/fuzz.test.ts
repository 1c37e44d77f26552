/**
 * Fuzz of every JSON route of the route table: seeded mutations of a valid body, never a 500. The PRNG is seeded:
 * a failure names its route, seed and iteration.
 */
import assert from "node:assert/strict";
import { type Json, mutate, mutateText, nest, prng } from "../helpers/hostile.ts";
import { jsonRoutes } from "./samples.ts";
import { assertNoInternalErrors, describe, Findings, sane, sendText, startAudit } from "./setup.ts";

const FUZZ_ITERATIONS = 300;
const FUZZ_SEED = 0xa0d17;

Deno.test("audit: fuzz of every JSON route", async (t) => {
  await using s = await startAudit();

  await t.step(`fuzz: ${FUZZ_ITERATIONS} seeded mutations of each JSON route, never a 500`, async () => {
    const f = new Findings();
    const routes = jsonRoutes(s);
    for (const [ri, route] of routes.entries()) {
      const seed = FUZZ_SEED + ri;
      const rng = prng(seed);
      for (let i = 0; i < FUZZ_ITERATIONS; i++) {
        const base = await route.base();
        let text: string;
        if (rng.next() < 0.1) text = mutateText(rng, JSON.stringify(base));
        else {
          let body = mutate(rng, base);
          if (rng.next() < 0.3) body = mutate(rng, body);
          text = JSON.stringify(body);
        }
        const r = await sendText(s, route, text, "application/json");
        const label = `${route.label} seed=${seed} i=${i} body=${text.slice(0, 160)}`;
        sane(f, label, r);
        if (route.login) f.check(label, () => assert.ok([401, 429].includes(r.status), describe(r)));
        if (f.list.length > 40) break;
      }
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(s.srv));
});

Deno.test("hostile helpers: seeded mutations reproduce and stay bounded", () => {
  const a = prng(7), b = prng(7);
  const base: Json = { name: "x", list: ["a", "b"], nested: { flag: true } };
  for (let i = 0; i < 200; i++) {
    const ma: string = JSON.stringify(mutate(a, base));
    const mb: string = JSON.stringify(mutate(b, base));
    assert.equal(ma, mb);
    assert.ok(ma.length < 40_000, `mutation ${i} is ${ma.length} bytes`);
  }
  assert.equal(JSON.stringify(nest(3)), "[[[[]]]]");
});
