import { describe, expect, it } from "vitest";
import { enUsDateTime, formatDateTime } from "./format.ts";

/** The zone as the console writes it: "UTC" or the offset from it at that instant. */
const zoneOf = (iso: string) => {
  const east = -new Date(iso).getTimezoneOffset();
  if (east === 0) return "UTC";
  const h = Math.floor(Math.abs(east) / 60), m = Math.abs(east) % 60;
  return `UTC${east > 0 ? "+" : "-"}${h}${m ? `:${String(m).padStart(2, "0")}` : ""}`;
};

describe("formatDateTime", () => {
  it("gives the date and time with the user's zone, at each instant's own offset", () => {
    for (const iso of ["2026-01-15T10:00:00Z", "2026-07-15T10:00:00Z", "2026-01-16T23:59:00Z"]) {
      const text = formatDateTime(iso);
      expect(text.endsWith(` ${zoneOf(iso)}`)).toBe(true);
      expect(text).toContain("2026");
    }
  });

  it("writes the offset, hours and minutes, never a zone name", () => {
    expect(formatDateTime("2026-01-15T10:00:00Z")).toMatch(/ UTC([+-]\d{1,2}(:\d\d)?)?$/);
  });

  it("shows '-' for nothing and for what is not a date", () => {
    expect(formatDateTime(null)).toBe("-");
    expect(formatDateTime(undefined)).toBe("-");
    expect(formatDateTime("not a date")).toBe("-");
  });
});

describe("enUsDateTime", () => {
  it("writes what Intl's en-US medium date and short time write", () => {
    const intl = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });
    for (let i = 0; i < 500; i++) {
      // Every month, both halves of the day, midnight and noon, one- and two-digit days and hours.
      const d = new Date(Date.UTC(2020 + (i % 9), i % 12, 1 + (i * 7) % 28, (i * 5) % 24, (i * 13) % 60));
      expect(enUsDateTime(d)).toBe(intl.format(d).replace(/\s/g, " "));
    }
  });
});
