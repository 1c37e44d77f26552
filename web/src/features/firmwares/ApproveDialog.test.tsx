import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../../shared/client.ts";
import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import { ApproveDialog } from "./ApproveDialog.tsx";

const approveFirmware = vi.fn();
vi.mock("../../lib/api.ts", () => ({ api: { approveFirmware: (...a: unknown[]) => approveFirmware(...a) } }));

const firmware: Firmware = {
  _id: "f1",
  name: "fw-3.0.0.xz",
  createdAt: "2026-11-28T03:00:00.000Z",
  size: 2048,
  sha256: "ab".repeat(32),
  signature: { keyId: "k1", keyName: "release-ci", algorithm: "ecdsa-p256", value: "AAAA" },
  approval: { state: "pending", by: null, at: null, meaning: null },
  uploadedBy: "olga@example.com",
};

function setup() {
  const onHide = vi.fn();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ApproveDialog firmware={firmware} onHide={onHide} />
    </QueryClientProvider>,
  );
  const approve = () => screen.getByRole("button", { name: "Approve for release" }) as HTMLButtonElement;
  const password = () => screen.getByLabelText("Your password") as HTMLInputElement;
  return { onHide, approve, password };
}

beforeEach(() => {
  approveFirmware.mockReset();
});

describe("ApproveDialog", () => {
  it("shows what is signed and the meaning; Approve needs the password", async () => {
    const { approve, password } = setup();
    await screen.findByText("Your password");
    expect(screen.getByText("ab".repeat(32))).toBeTruthy();
    expect(screen.getByText("Signed with release-ci (ECDSA P-256)")).toBeTruthy();
    expect(screen.getByText(/by olga@example\.com/)).toBeTruthy();
    expect(screen.getByText("“approved for release”")).toBeTruthy();
    expect(approve().disabled).toBe(true);
    fireEvent.change(password(), { target: { value: "secret-1" } });
    expect(approve().disabled).toBe(false);
  });

  it("keeps the server's refusal in the dialog, clears the password, and stays open", async () => {
    approveFirmware.mockImplementation(() =>
      Promise.reject(
        new ApiError("HTTP_ERROR", "The firmware is not pending.", "/api/v1/device_firmwares/f1/approve", 409),
      )
    );
    const { onHide, approve, password } = setup();
    await screen.findByText("Your password");
    fireEvent.change(password(), { target: { value: "secret-1" } });
    fireEvent.click(approve());
    expect(await screen.findByText("Not approved: The firmware is not pending.")).toBeTruthy();
    expect(approveFirmware).toHaveBeenCalledWith("f1", "secret-1");
    expect(password().value).toBe("");
    expect(onHide).not.toHaveBeenCalled();
  });

  it("is busy while the approval runs (nothing to click twice), then closes", async () => {
    let finish: (f: Firmware) => void = () => {};
    approveFirmware.mockReturnValue(new Promise<Firmware>((resolve) => (finish = resolve)));
    const { onHide, approve, password } = setup();
    await screen.findByText("Your password");
    fireEvent.change(password(), { target: { value: "secret-1" } });
    fireEvent.submit(password().closest("form")!);
    await waitFor(() => expect(approve().disabled).toBe(true));
    expect((screen.getByRole("button", { name: "Cancel" }) as HTMLButtonElement).disabled).toBe(true);
    expect(password().disabled).toBe(true);
    finish({ ...firmware, approval: { state: "approved", by: "piet@example.com", at: "t", meaning: "m" } });
    await waitFor(() => expect(onHide).toHaveBeenCalled());
    expect(approveFirmware).toHaveBeenCalledTimes(1);
  });
});
