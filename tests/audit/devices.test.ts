/**
 * Audit of the device and device type routes: the device list's query parameters, and the rules a patch must
 * keep (modules of the device's own product type, known ids, no duplicates, the path's id) with hostile
 * combinations: the right 4xx, the field named, nothing changed.
 */
import assert from "node:assert/strict";
import {
  assertNoInternalErrors,
  checkRuleCases,
  describe,
  Findings,
  foreignModuleId,
  refused,
  type RuleCase,
  sane,
  send,
  startAudit,
} from "./setup.ts";

Deno.test("audit: devices and device types", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("GET devices query parameters", async () => {
    const f = new Findings();
    const get = (query: string) => send(srv, "GET", `/api/v1/devices?${query}`, { token: s.token });
    const bad: [string, string][] = [
      ["page=-1", "page"],
      ["page=1e3", "page"],
      ["page=abc", "page"],
      ["page=1.5", "page"],
      ["page=", "page"],
      ["page=%00", "page"],
      ["page=99999999999999999999", "page"],
      ["page=0x10", "page"],
      ["page=%20", "page"],
      ["rowsPerPage=0", "rowsPerPage"],
      ["rowsPerPage=101", "rowsPerPage"],
      ["rowsPerPage=abc", "rowsPerPage"],
      ["rowsPerPage=-5", "rowsPerPage"],
      ["rowsPerPage=1e1", "rowsPerPage"],
      ["rowsPerPage=", "rowsPerPage"],
      ["rowsPerPage=10.0", "rowsPerPage"],
    ];
    for (const [query, field] of bad) {
      refused(f, `GET devices?${query}`, await get(query), [400], { code: "invalid_request", field });
    }
    // q within limits: a case-insensitive substring of deviceId; LIKE wildcards match literally.
    const ok = async (query: string, total: number) => {
      const r = await get(query);
      f.check(`GET devices?${query}`, () => {
        assert.equal(r.status, 200, describe(r));
        assert.equal((r.json as { total: number }).total, total, `total for ${query}`);
      });
    };
    await ok("q=dev-00", 5);
    await ok("q=DEV-00", 5);
    await ok("q=%25", 0);
    await ok("q=_", 0);
    await ok("q=%5C", 0);
    await ok(`q=${encodeURIComponent("🦄")}`, 0);
    await ok("rowsPerPage=100&page=1000000", 5);
    await ok("rowsPerPage=100&page=1000000000", 5);
    // Repeated parameters and a 1,000-character q: a 400, or a 200 that honours one of the values.
    for (const query of ["page=0&page=1", "rowsPerPage=10&rowsPerPage=0", "q=dev&q=zzz"]) {
      const r = await get(query);
      sane(f, `GET devices?${query}`, r);
    }
    {
      const r = await get(`q=${"d".repeat(1_000)}`);
      sane(f, "GET devices?q=<1000 chars>", r);
      if (r.status === 200) {
        const total = (r.json as { total: number }).total;
        f.check("GET devices?q=<1000 chars>", () => assert.equal(total, 0, `matched ${total} devices`));
      } else refused(f, "GET devices?q=<1000 chars>", r, [400], { field: "q" });
    }
    {
      const r = await get("q=%00");
      sane(f, "GET devices?q=%00", r);
      if (r.status === 200) {
        const total = (r.json as { total: number }).total;
        f.check("GET devices?q=%00", () => assert.equal(total, 0, `a NUL filter matched ${total} devices`));
      }
    }
    f.done();
  });

  await t.step("patch rules with hostile combinations: the right 4xx, the field named, nothing changed", async () => {
    const f = new Findings();
    const foreignModule = await foreignModuleId(s);
    const cases: RuleCase[] = [
      [
        "module of another type",
        "PATCH",
        "/api/v1/devices/dev-002",
        {
          deviceId: "dev-002",
          productTypeId: s.ptId,
          moduleIds: [foreignModule],
        },
        400,
        "moduleIds",
      ],
      [
        "modules of the old type with a new type",
        "PATCH",
        "/api/v1/devices/dev-001",
        {
          deviceId: "dev-001",
          productTypeId: s.pt2Id,
          moduleIds: [s.extraModuleId],
        },
        400,
        "moduleIds",
      ],
      [
        "modules without a product type",
        "PATCH",
        "/api/v1/devices/dev-003",
        {
          deviceId: "dev-003",
          moduleIds: [s.extraModuleId],
        },
        400,
        "moduleIds",
      ],
      [
        "duplicate moduleIds",
        "PATCH",
        "/api/v1/devices/dev-001",
        {
          deviceId: "dev-001",
          moduleIds: [s.extraModuleId, s.extraModuleId],
        },
        400,
        "moduleIds",
      ],
      [
        "duplicate additionalTreatmentIds",
        "PATCH",
        "/api/v1/devices/dev-001",
        {
          deviceId: "dev-001",
          additionalTreatmentIds: [s.treatmentIds[0], s.treatmentIds[0]],
        },
        400,
        "additionalTreatmentIds",
      ],
      [
        "a module id as a treatment id",
        "PATCH",
        "/api/v1/devices/dev-001",
        {
          deviceId: "dev-001",
          additionalTreatmentIds: [s.extraModuleId],
        },
        400,
        "additionalTreatmentIds",
      ],
      [
        "a treatment id as a firmware",
        "PATCH",
        "/api/v1/devices/dev-001",
        {
          deviceId: "dev-001",
          firmware: s.treatmentIds[0],
        },
        400,
        "firmware",
      ],
      [
        "a firmware id as a product type",
        "PATCH",
        "/api/v1/devices/dev-001",
        {
          deviceId: "dev-001",
          productTypeId: s.fwA._id,
        },
        400,
        "productTypeId",
      ],
      ["body deviceId differs", "PATCH", "/api/v1/devices/dev-001", { deviceId: "dev-002" }, 400, "deviceId"],
      ["body deviceId differs in case", "PATCH", "/api/v1/devices/dev-001", { deviceId: "DEV-001" }, 400, "deviceId"],
      [
        "device type _id differs",
        "PATCH",
        `/api/v1/device_types/${s.dtId}`,
        {
          _id: `${s.dtId}x`,
          defaultFirmware: null,
        },
        400,
        "_id",
      ],
      [
        "unknown default firmware",
        "PATCH",
        `/api/v1/device_types/${s.dtId}`,
        {
          _id: s.dtId,
          defaultFirmware: s.treatmentIds[0],
        },
        400,
        "defaultFirmware",
      ],
    ];
    await checkRuleCases(s, f, cases);
    // JSON with a charset parameter or an upper-case type is still JSON.
    for (const type of ["application/json; charset=UTF-8", "Application/JSON"]) {
      const r = await send(srv, "PATCH", `/api/v1/device_types/${s.dtId}`, {
        token: s.token,
        body: JSON.stringify({ _id: s.dtId, defaultFirmware: s.fwB._id }),
        contentType: type,
      });
      f.check(`PATCH device_types with ${type}`, () => assert.equal(r.status, 200, describe(r)));
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
