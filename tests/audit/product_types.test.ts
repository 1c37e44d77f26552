/**
 * Audit of the product type routes: unique names (ignoring case and padding), the path's id, modules of this
 * product type only, known treatments, the theme's size, with hostile combinations: the right 4xx, the field
 * named, nothing changed.
 */
import { type Json } from "../helpers/hostile.ts";
import { routes } from "../../shared/routes/mod.ts";
import { jsonRoute } from "./samples.ts";
import {
  assertNoInternalErrors,
  checkRuleCases,
  Findings,
  foreignModuleId,
  type RuleCase,
  startAudit,
} from "./setup.ts";

Deno.test("audit: product types", async (t) => {
  await using s = await startAudit();

  await t.step("rules with hostile combinations: the right 4xx, the field named, nothing changed", async () => {
    const f = new Findings();
    const foreignModule = await foreignModuleId(s);
    const ptBody = (await jsonRoute(s, routes.patchProductType).base()) as {
      modules: Record<string, Json>[];
    } & Record<string, Json>;
    const [m0, m1] = ptBody.modules;
    const cases: RuleCase[] = [
      ["duplicate name, other case", "POST", "/api/v1/product_types", { name: "AUDIT TYPE" }, 409],
      ["duplicate name, padded", "POST", "/api/v1/product_types", { name: "  audit type\t" }, 409],
      ["blank name", "POST", "/api/v1/product_types", { name: " \t " }, 400, "name"],
      ["rename onto another type", "PATCH", `/api/v1/product_types/${s.ptId}`, {
        ...ptBody,
        name: "other TYPE",
      }, 409],
      [
        "product type _id differs",
        "PATCH",
        `/api/v1/product_types/${s.ptId}`,
        { ...ptBody, _id: s.pt2Id },
        400,
        "_id",
      ],
      [
        "a module of another type",
        "PATCH",
        `/api/v1/product_types/${s.ptId}`,
        {
          ...ptBody,
          modules: [m0, { ...m1, _id: foreignModule }],
        },
        400,
        "_id",
      ],
      [
        "the same module twice",
        "PATCH",
        `/api/v1/product_types/${s.ptId}`,
        {
          ...ptBody,
          modules: [m0, { ...m1, _id: m0._id }],
        },
        400,
        "_id",
      ],
      [
        "duplicate treatments in a module",
        "PATCH",
        `/api/v1/product_types/${s.ptId}`,
        {
          ...ptBody,
          modules: [m0, { ...m1, treatmentIds: [s.treatmentIds[1], s.treatmentIds[1]] }],
        },
        400,
        "treatmentIds",
      ],
      [
        "an unknown treatment in a module",
        "PATCH",
        `/api/v1/product_types/${s.ptId}`,
        {
          ...ptBody,
          modules: [m0, { ...m1, treatmentIds: [s.imageId] }],
        },
        400,
        "treatmentIds",
      ],
      [
        "a blank module name",
        "PATCH",
        `/api/v1/product_types/${s.ptId}`,
        {
          ...ptBody,
          modules: [m0, { ...m1, name: "  " }],
        },
        400,
        "name",
      ],
      [
        "a theme over 64 KiB",
        "PATCH",
        `/api/v1/product_types/${s.ptId}`,
        {
          ...ptBody,
          theme: { big: "x".repeat(70_000) },
        },
        400,
        "theme",
      ],
    ];
    await checkRuleCases(s, f, cases);
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(s.srv));
});
