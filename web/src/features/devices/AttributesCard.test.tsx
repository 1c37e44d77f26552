import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import type { Device } from "../../../../shared/schemas/mod.ts";
import { AttributesCard } from "./AttributesCard.tsx";

const DEVICE: Device = {
  deviceId: "ddi-1",
  productTypeId: null,
  moduleIds: [],
  additionalTreatmentIds: [],
  firmware: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  lastLoggedIn: null,
  versionInfo: null,
  update: null,
  etag: '"1"',
  admission: "accepted",
  credentialsIssuedAt: null,
  attributes: null,
};

describe("AttributesCard", () => {
  it("lists the reported attributes by name, read-only", () => {
    render(<AttributesCard device={{ ...DEVICE, attributes: { serial: "SN-42", board: "rpi4" } }} />);
    const rows = screen.getAllByRole("row").map((r) => r.textContent);
    expect(rows).toEqual(["boardrpi4", "serialSN-42"]);
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.queryByRole("textbox")).toBeNull();
  });

  it("is absent for a device that never reported attributes", () => {
    const { container } = render(<AttributesCard device={DEVICE} />);
    expect(container.textContent).toBe("");
  });
});
