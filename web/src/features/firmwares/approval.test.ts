import { describe, expect, it } from "vitest";
import { approveOffer } from "./approval.ts";

const pending = { approval: { state: "pending" as const, by: null, at: null, meaning: null }, uploadedBy: "Ann@x.org" };

describe("approveOffer", () => {
  it("offers Approve to an operator or admin who did not upload the firmware", () => {
    expect(approveOffer(pending, "operator", "bob@x.org").kind).toBe("approve");
    expect(approveOffer(pending, "admin", "bob@x.org").kind).toBe("approve");
  });

  it("disables it for the uploader (whatever the case of the e-mail) and says why", () => {
    const o = approveOffer(pending, "admin", "ann@x.org");
    expect(o.kind).toBe("disabled");
    expect(o.reason).toContain("You uploaded this firmware");
  });

  it("shows a viewer no button, only the reason", () => {
    const o = approveOffer(pending, "viewer", "vic@x.org");
    expect(o).toEqual({ kind: "hidden", reason: expect.stringContaining("operator or admin role") });
  });

  it("offers nothing for a firmware that is approved or needs no approval", () => {
    const approved = { ...pending, approval: { state: "approved" as const, by: "b", at: "t", meaning: "m" } };
    expect(approveOffer(approved, "operator", "bob@x.org").kind).toBe("none");
    const free = { ...pending, approval: { state: "not_required" as const, by: null, at: null, meaning: null } };
    expect(approveOffer(free, "operator", "bob@x.org").kind).toBe("none");
  });

  it("keeps the button disabled, without a reason, until the role is known", () => {
    expect(approveOffer(pending, undefined, "bob@x.org")).toEqual({ kind: "disabled", reason: null });
  });
});
