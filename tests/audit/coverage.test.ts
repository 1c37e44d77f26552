/**
 * The audit covers the whole route table: every route has the samples its kind needs (a probe for the 401 checks,
 * a body for the hostile bodies and the fuzz, an id route for the path checks, a file for the upload checks), and
 * no sample is left over. The JSON field rules the audit reads from the body schemas are checked here too.
 */
import assert from "node:assert/strict";
import { routeList, type RouteName, routes } from "../../shared/routes/mod.ts";
import { fieldRules, partsNeeded, samplesFor } from "./samples.ts";
import type { Seed } from "./setup.ts";

/** A seed with placeholder ids: enough to build the samples without a server. */
const fakeSeed = {
  token: "t",
  tmp: "/nonexistent",
  treatmentIds: ["t0", "t1", "t2", "t3", "t4", "t5"],
  imageId: "img",
  ptId: "pt",
  pt2Id: "pt2",
  baseModuleId: "m0",
  extraModuleId: "m1",
  fwA: { _id: "fwA", name: "fw-a.xz" },
  fwB: { _id: "fwB", name: "fw-b.xz" },
  dtId: "dt",
  rolloutId: "r",
  devices: [],
} as unknown as Seed;

Deno.test("audit coverage: every table route has the samples it needs, and only those", () => {
  const samples = samplesFor(fakeSeed);
  const problems: string[] = [];
  for (const route of routeList) {
    const sample = samples[route.name as RouteName];
    if (!sample) {
      problems.push(`${route.name}: no sample in tests/audit/samples.ts`);
      continue;
    }
    const needed = partsNeeded(route);
    for (const part of needed) if (!sample[part]) problems.push(`${route.name}: no '${part}' sample`);
    for (const part of Object.keys(sample)) {
      if (!needed.includes(part as keyof typeof sample)) problems.push(`${route.name}: '${part}' sample never used`);
    }
  }
  for (const name of Object.keys(samples)) {
    if (!(name in routes)) problems.push(`${name}: a sample for a route not in the table`);
  }
  assert.deepEqual(problems, []);
});

Deno.test("audit coverage: the JSON field rules read from the body schemas", () => {
  const rules = (name: RouteName) => {
    const body = routes[name].body;
    assert.equal(body.kind, "json");
    return fieldRules(body.schema);
  };
  const none = { nullable: [], optional: [], free: [] };
  assert.deepEqual(rules("login"), none);
  assert.deepEqual(rules("changePassword"), none);
  assert.deepEqual(rules("createProductType"), none);
  assert.deepEqual(rules("patchDevice"), {
    nullable: ["productTypeId", "firmware"],
    optional: ["productTypeId", "moduleIds", "firmware", "additionalTreatmentIds"],
    free: [],
  });
  assert.deepEqual(rules("patchDeviceType"), { nullable: ["defaultFirmware"], optional: [], free: [] });
  assert.deepEqual(rules("deviceCheckin"), { nullable: ["versionInfo.app", "versionInfo.os"], optional: [], free: [] });
  assert.deepEqual(rules("patchProductType"), { nullable: [], optional: ["theme", "modules._id"], free: ["theme."] });
});
