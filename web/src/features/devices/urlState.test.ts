import { describe, expect, it } from "vitest";
import { devicesUrlQuery, readDevicesUrl } from "./urlState.ts";

describe("devices list URL state", () => {
  it("defaults to page 0, 25 rows, no search", () => {
    expect(readDevicesUrl(new URLSearchParams(""))).toEqual({ page: 0, size: 25, q: "" });
    expect(devicesUrlQuery({ page: 0, size: 25, q: "" })).toBe("");
  });

  it("round-trips page, size and search", () => {
    const query = devicesUrlQuery({ page: 3, size: 50, q: "ab 1" });
    expect(readDevicesUrl(new URLSearchParams(query))).toEqual({ page: 3, size: 50, q: "ab 1" });
  });

  it("ignores values outside the offered options", () => {
    expect(readDevicesUrl(new URLSearchParams("page=-1&size=30"))).toEqual({ page: 0, size: 25, q: "" });
    expect(readDevicesUrl(new URLSearchParams("page=1.5&size=abc"))).toEqual({ page: 0, size: 25, q: "" });
    expect(readDevicesUrl(new URLSearchParams(`q=${"x".repeat(300)}`)).q).toHaveLength(128);
  });

  it("round-trips the admission filter and ignores unknown states", () => {
    const query = devicesUrlQuery({ page: 0, size: 25, q: "", admission: "pending" });
    expect(query).toBe("?admission=pending");
    expect(readDevicesUrl(new URLSearchParams(query))).toEqual({ page: 0, size: 25, q: "", admission: "pending" });
    expect(readDevicesUrl(new URLSearchParams("admission=waiting"))).toEqual({ page: 0, size: 25, q: "" });
  });
});
