import { describe, expect, it } from "vitest";
import { formatDateTime } from "./format.ts";

const zoneOf = (iso: string) =>
  new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }).formatToParts(new Date(iso))
    .find((p) => p.type === "timeZoneName")?.value;

describe("formatDateTime", () => {
  it("gives the date and time with the user's zone, at each instant's own offset", () => {
    for (const iso of ["2026-01-15T10:00:00Z", "2026-07-15T10:00:00Z", "2026-01-16T23:59:00Z"]) {
      const text = formatDateTime(iso);
      expect(text.endsWith(` ${zoneOf(iso)}`)).toBe(true);
      expect(text).toContain("2026");
    }
  });

  it("shows '-' for nothing and for what is not a date", () => {
    expect(formatDateTime(null)).toBe("-");
    expect(formatDateTime(undefined)).toBe("-");
    expect(formatDateTime("not a date")).toBe("-");
  });
});
