import { describe, expect, it } from "vitest";
import { impactText } from "./DeletionImpact.tsx";

describe("deletion impact", () => {
  it("say how many devices lose a product type", () => {
    expect(impactText("this product type", 3, false)).toBe("3 devices have this product type and will lose it.");
    expect(impactText("this module enabled", 1, false)).toBe("1 device has this module enabled and will lose it.");
    expect(impactText("this product type", 0, false)).toBe("No device has this product type.");
    expect(impactText("this product type", undefined, false)).toMatch(/^Counting/);
    expect(impactText("this product type", null, false)).toMatch(/^Every device that has this product type/);
  });
});
