import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../../shared/schemas/audit.ts";
import { actionText, detailLines, detailsSummary } from "./describe.ts";

const entry = (action: string, details: Record<string, unknown>): AuditEntry => ({
  _id: "e1",
  seq: 1,
  at: "2026-11-27T10:00:00.000Z",
  actor: { type: "operator", id: "op1", name: "admin@example.com" },
  action,
  target: { type: "device", id: "D1", name: "D1" },
  details,
  ip: "127.0.0.1",
  hash: "0".repeat(64),
});

const names = { fw1: "fw-2.5.0.xz", pt1: "Walker", m1: "Pelvic floor", m2: "Balance", t1: "Knee rehab" };
// Test ids are short; real ones (32 hex digits) that the names lack read "a deleted ...".

describe("audit entries in words", () => {
  it("names actions in words", () => {
    expect(actionText("device.update")).toBe("Device changed");
    expect(actionText("firmware.upload")).toBe("Firmware uploaded");
    expect(actionText("something.new")).toBe("something.new");
  });

  it("reads reported device attributes by their own names", () => {
    const e = entry("device.attributes", {
      before: { hw_rev: null, board: "a" },
      changes: { hw_rev: "1.0", board: "b" },
    });
    expect(actionText("device.attributes")).toBe("Device attributes reported");
    expect(detailLines(e, names)).toEqual(["hw_rev: none → 1.0", "board: a → b"]);
  });

  it("reads a device change as names and values, before → after", () => {
    const e = entry("device.update", {
      changes: { firmware: "fw1", moduleIds: ["m1", "m2"], additionalTreatmentIds: [] },
      before: { firmware: null, moduleIds: ["m2"], additionalTreatmentIds: ["t1"] },
    });
    expect(detailLines(e, names)).toEqual([
      "Custom firmware: none → fw-2.5.0.xz",
      "Modules: Pelvic floor added",
      "Additional treatments: Knee rehab removed",
    ]);
  });

  it("a new product type clears the modules; an id no longer known is not shown as an id", () => {
    const e = entry("device.update", {
      changes: { productTypeId: "pt1" },
      before: { productTypeId: "0123456789abcdef0123456789abcdef", moduleIds: ["m1"] },
    });
    expect(detailLines(e, names)).toEqual([
      "Product type: a deleted product type → Walker",
      "Modules: Pelvic floor removed",
    ]);
  });

  it("reads an operator's change without the fields it left alone", () => {
    const e = entry("operator.update", { changes: { disabled: true }, before: { role: "viewer", disabled: false } });
    expect(detailLines(e)).toEqual(["Disabled: no → yes"]);
  });

  it("reads a product type's modules and a device type's default firmware", () => {
    const pt = entry("product_type.update", {
      changes: {
        name: "Walker 2",
        theme: { primary: "#078686" },
        modules: [{ _id: "m1", name: "Pelvic floor" }, { name: "Gait" }],
      },
      before: { name: "Walker", modules: [{ _id: "m1", name: "Pelvic floor" }, { _id: "m2", name: "Balance" }] },
    });
    expect(detailLines(pt, names)).toEqual(["Name: Walker → Walker 2", "Modules: Gait added; Balance removed"]);
    const dt = entry("device_type.update", { defaultFirmware: "fw1", before: { defaultFirmware: null } });
    expect(detailsSummary(dt, names)).toBe("Default firmware: none → fw-2.5.0.xz");
  });

  it("reads other details as labelled values; a strange e-mail says it was escaped", () => {
    expect(detailsSummary(entry("firmware.upload", { size: 2048, sha256: "ab" }), names)).toBe(
      "Size: 2.0 KiB · SHA-256: ab",
    );
    expect(detailsSummary(entry("auth.sign_in_failed", { email: "\\ud800@x", escaped: true, reason: "unknown_email" })))
      .toBe("E-mail: \\ud800@x (escaped) · Reason: unknown e-mail address");
    expect(detailsSummary(entry("device.bulk_update", { changes: { firmware: "fw1" }, devices: 3 }), names))
      .toBe("3 devices · Custom firmware: fw-2.5.0.xz");
    expect(detailsSummary(entry("auth.sign_in", {}))).toBe("-");
    expect(detailsSummary(entry("saved_view.delete", { query: { firmware: "custom", productTypeId: "pt1" } }), names))
      .toBe("Query: Custom firmware custom, Product type Walker");
  });
});
