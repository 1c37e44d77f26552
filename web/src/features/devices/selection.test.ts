import { describe, expect, it } from "vitest";
import { deviceCount, NO_SELECTION, selectionExact, selectionSize } from "./selection.ts";
import { NO_FILTER } from "./urlState.ts";

const FILTER = NO_FILTER;

describe("device counts and selections", () => {
  it("says how many devices, or at least how many when the total is a lower bound", () => {
    expect(deviceCount(1)).toBe("1 device");
    expect(deviceCount(3)).toBe("3 devices");
    expect(deviceCount(275, false)).toBe("at least 275 devices");
  });

  it("a selection of all matching devices is exact unless the list's total was not", () => {
    expect(selectionExact(NO_SELECTION)).toBe(true);
    const matching = { kind: "matching", filter: FILTER, total: 275, exact: false } as const;
    expect([selectionSize(matching), selectionExact(matching)]).toEqual([275, false]);
    expect(selectionExact({ ...matching, exact: true })).toBe(true);
  });
});
