import { describe, expect, it, vi } from "vitest";
import type { Device } from "../../../../shared/schemas/mod.ts";
import { countDevices, MAX_COUNTED_DEVICES } from "./deviceCount.ts";
import { modulesRemovedText } from "./ProductTypeCard.tsx";

const device = (i: number, productTypeId: string | null): Device => ({
  deviceId: `d-${i}`,
  productTypeId,
  moduleIds: [],
  additionalTreatmentIds: [],
  firmware: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  lastLoggedIn: null,
  versionInfo: null,
  update: null,
  etag: `"${i}"`,
  admission: "accepted",
  credentialsIssuedAt: null,
  attributes: null,
});

function fleet(size: number) {
  const all = Array.from({ length: size }, (_, i) => device(i, i % 3 === 0 ? "walker" : null));
  return vi.fn((page: number, rowsPerPage: number) =>
    Promise.resolve({ data: all.slice(page * rowsPerPage, (page + 1) * rowsPerPage), total: size, exact: true, page })
  );
}

describe("countDevices", () => {
  it("reads every page of a small fleet", async () => {
    const list = fleet(250);
    expect(await countDevices((d) => d.productTypeId === "walker", list)).toBe(84);
    expect(list).toHaveBeenCalledTimes(3);
  });

  it("does not count a fleet larger than the limit", async () => {
    const list = fleet(MAX_COUNTED_DEVICES + 1);
    expect(await countDevices(() => true, list)).toBeNull();
    expect(list).toHaveBeenCalledTimes(1);
  });
});

describe("consequence texts", () => {
  it("say how many enabled modules a product type change removes", () => {
    expect(modulesRemovedText([])).toBe("No enabled modules will be removed.");
    expect(modulesRemovedText(["Sport pack"])).toBe("1 enabled module will be removed: Sport pack.");
    expect(modulesRemovedText(["A", "B"])).toBe("2 enabled modules will be removed: A, B.");
  });
});
