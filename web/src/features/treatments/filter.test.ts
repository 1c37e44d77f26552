import { describe, expect, it } from "vitest";
import { filterByName } from "./filter.ts";

describe("filterByName", () => {
  const items = [{ name: "Knee pain" }, { name: "Back PAIN relief" }, { name: "Sleep" }];
  it("matches a case-insensitive substring and ignores surrounding spaces", () => {
    expect(filterByName(items, "  pain ").map((i) => i.name)).toEqual(["Knee pain", "Back PAIN relief"]);
    expect(filterByName(items, "EEP").map((i) => i.name)).toEqual(["Sleep"]);
    expect(filterByName(items, "   ")).toHaveLength(3);
    expect(filterByName(items, "nothing")).toEqual([]);
  });
});
