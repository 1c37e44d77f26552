import { describe, expect, it } from "vitest";
import { apiFilter, devicesHref, devicesUrlQuery, NO_FILTER, readDevicesUrl } from "./urlState.ts";

const DEFAULT = { ...NO_FILTER, page: 0, size: 25, sort: "deviceId", order: "asc" } as const;

describe("devices list URL state", () => {
  it("defaults to page 0, 25 rows, no search, no filter, sorted by device id", () => {
    expect(readDevicesUrl(new URLSearchParams(""))).toEqual(DEFAULT);
    expect(devicesUrlQuery(DEFAULT)).toBe("");
  });

  it("round-trips page, size, search, sort and filters", () => {
    const state = {
      ...DEFAULT,
      page: 3,
      size: 50,
      q: "ab 1",
      sort: "lastLoggedIn",
      order: "desc",
      firmware: "fw-1",
      productTypeId: "none",
      app: "2.0",
      os: "linux",
      seen: "7d",
      admission: "pending",
      update: "failed",
    } as const;
    expect(readDevicesUrl(new URLSearchParams(devicesUrlQuery(state)))).toEqual(state);
  });

  it("ignores values outside the offered options", () => {
    expect(
      readDevicesUrl(new URLSearchParams("page=-1&size=30&sort=colour&order=up&seen=1h&admission=maybe&update=done")),
    ).toEqual(
      DEFAULT,
    );
    expect(readDevicesUrl(new URLSearchParams("page=1.5&size=abc"))).toEqual(DEFAULT);
    expect(readDevicesUrl(new URLSearchParams(`q=${"x".repeat(300)}`)).q).toHaveLength(128);
  });

  it("links to a filtered list and gives the API only the filters set", () => {
    expect(devicesHref({ firmware: "fw 1" })).toBe("/devices?firmware=fw+1");
    expect(apiFilter({ ...NO_FILTER, seen: "never", app: "1" })).toEqual({ app: "1", seen: "never" });
  });
});
