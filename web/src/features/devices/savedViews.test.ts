import { afterEach, describe, expect, it } from "vitest";
import {
  keepLocalViews,
  loadColumns,
  loadLocalViews,
  localViewQuery,
  saveColumns,
  viewLabel,
  viewQueryOf,
  viewUrlQuery,
} from "./savedViews.ts";
import { NO_FILTER, readDevicesUrl } from "./urlState.ts";

const DEFAULT = { ...NO_FILTER, page: 0, size: 25, sort: "deviceId", order: "asc" } as const;

describe("saved views: the list's URL and the server's query", () => {
  afterEach(() => localStorage.clear());

  it("keeps filters and a non-default sort, never the page or size", () => {
    expect(viewQueryOf(DEFAULT)).toEqual({});
    const state = { ...DEFAULT, page: 4, size: 100, q: "ab", seen: "7d", update: "failed", order: "desc" } as const;
    expect(viewQueryOf(state)).toEqual({ q: "ab", seen: "7d", update: "failed", order: "desc" });
  });

  it("opens a saved query at the URL the list itself writes", () => {
    const q = { app: "2.0.0", sort: "lastLoggedIn", order: "desc" } as const;
    expect(viewUrlQuery(q)).toBe("?app=2.0.0&sort=lastLoggedIn&order=desc");
    expect(viewUrlQuery({})).toBe("");
    expect(viewQueryOf(readDevicesUrl(new URLSearchParams(viewUrlQuery(q))))).toEqual(q);
  });

  it("reads an old local view's URL query into a saved query", () => {
    expect(localViewQuery({ name: "x", query: "?firmware=custom&sort=app&page=3" })).toEqual({
      firmware: "custom",
      sort: "app",
    });
  });

  it("labels shared views with whose they are", () => {
    const v = { _id: "1", name: "Failing", query: {}, createdAt: "", updatedAt: "" };
    expect(viewLabel({ ...v, owner: "me@x", shared: false }, "me@x")).toBe("Failing");
    expect(viewLabel({ ...v, owner: "me@x", shared: true }, "me@x")).toBe("Failing (shared)");
    expect(viewLabel({ ...v, owner: "ann@x", shared: true }, "me@x")).toBe("Failing (shared by ann@x)");
  });

  it("old local views are read, kept in part, and cleared", () => {
    localStorage.setItem("deviceViews:me@x", JSON.stringify([{ name: "a", query: "?seen=never" }, { name: "b" }]));
    expect(loadLocalViews("me@x")).toEqual([]);
    localStorage.setItem("deviceViews:me@x", JSON.stringify([{ name: "a", query: "?seen=never" }]));
    expect(loadLocalViews("me@x")).toEqual([{ name: "a", query: "?seen=never" }]);
    keepLocalViews("me@x", []);
    expect(localStorage.getItem("deviceViews:me@x")).toBeNull();
  });

  it("the column choice's local copy", () => {
    expect(loadColumns("me@x", ["deviceId"])).toEqual(["deviceId"]);
    saveColumns("me@x", ["deviceId", "app"]);
    expect(loadColumns("me@x", ["deviceId"])).toEqual(["deviceId", "app"]);
    saveColumns("me@x", null);
    expect(loadColumns("me@x", ["deviceId"])).toEqual(["deviceId"]);
  });
});
