import { describe, expect, it } from "vitest";
import { apiFilters, auditUrlQuery, EMPTY_FILTERS, nextDay, readAuditUrl } from "./urlState.ts";

const DEFAULT = { page: 0, size: 25, ...EMPTY_FILTERS };

describe("audit log URL state", () => {
  it("defaults to page 0, 25 rows, no filter; the plain URL stays plain", () => {
    expect(readAuditUrl(new URLSearchParams(""))).toEqual(DEFAULT);
    expect(auditUrlQuery(DEFAULT)).toBe("");
  });

  it("round-trips the page, size and every filter", () => {
    const state = {
      page: 2,
      size: 50,
      actor: "ops@example.com",
      action: "device.update",
      targetType: "device",
      targetId: "JB-1",
      from: "2026-11-01",
      until: "2026-11-30",
    };
    expect(readAuditUrl(new URLSearchParams(auditUrlQuery(state)))).toEqual(state);
  });

  it("drops what the API would refuse: unknown actions, bad days, control characters", () => {
    const read = readAuditUrl(new URLSearchParams("action=device.explode&from=yesterday&until=2026-13-45&actor=a%00b"));
    expect(read).toEqual({ ...DEFAULT, actor: "ab" });
  });

  it("an inclusive until day is the next day's start for the API; empty filters are left out", () => {
    expect(nextDay("2026-12-31")).toBe("2027-01-01");
    expect(apiFilters({ ...EMPTY_FILTERS, actor: "  ", until: "2026-02-28" })).toEqual({
      actor: undefined,
      action: undefined,
      targetType: undefined,
      targetId: undefined,
      from: undefined,
      to: "2026-03-01",
    });
  });
});
