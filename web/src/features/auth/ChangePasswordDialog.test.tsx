import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../../shared/client.ts";
import { ChangePasswordDialog } from "./ChangePasswordDialog.tsx";
import { canSavePassword } from "./validation.ts";

function setup(onChange = vi.fn((_c: string, _n: string) => Promise.resolve())) {
  const onHide = vi.fn();
  render(<ChangePasswordDialog visible onHide={onHide} identity="admin@example.com" onChange={onChange} />);
  const save = () => screen.getByRole("button", { name: "Save" }) as HTMLButtonElement;
  const type = (label: string, value: string) =>
    fireEvent.change(screen.getByLabelText(label, { exact: true }), { target: { value } });
  return { onHide, onChange, save, type };
}

describe("canSavePassword", () => {
  it("needs non-blank current and new, and a matching confirmation", () => {
    expect(canSavePassword("", "", "")).toBe(false);
    expect(canSavePassword("old", "", "")).toBe(false);
    expect(canSavePassword("  ", "new-pass", "new-pass")).toBe(false);
    expect(canSavePassword("old", "   ", "   ")).toBe(false);
    expect(canSavePassword("old", "new-pass", "new-pas")).toBe(false);
    expect(canSavePassword("old", "new-pass", "new-pass")).toBe(true);
  });
});

describe("ChangePasswordDialog", () => {
  it("enables Save only when the rules hold", async () => {
    const { save, type } = setup();
    await screen.findByText("Current password");
    expect(screen.getByText("New password")).toBeTruthy();
    expect(screen.getByText("New password (confirmation)")).toBeTruthy();
    expect(save().disabled).toBe(true);
    type("Current password", "old-password");
    expect(save().disabled).toBe(true);
    type("New password", "new-password");
    expect(save().disabled).toBe(true);
    type("New password (confirmation)", "new-passwor");
    expect(save().disabled).toBe(true);
    type("New password (confirmation)", "new-password");
    expect(save().disabled).toBe(false);
    type("Current password", "   ");
    expect(save().disabled).toBe(true);
  });

  it("shows the server's msg under 'Error changing password' and stays open", async () => {
    const failing = vi.fn(() =>
      Promise.reject(new ApiError("HTTP_ERROR", "Current password is incorrect.", "/api/v1/change_password", 400))
    );
    const { save, type, onHide } = setup(failing);
    await screen.findByText("Current password");
    type("Current password", "wrong");
    type("New password", "new-password");
    type("New password (confirmation)", "new-password");
    fireEvent.click(save());
    expect(await screen.findByText("Error changing password")).toBeTruthy();
    expect(screen.getByText("Current password is incorrect.")).toBeTruthy();
    expect(onHide).not.toHaveBeenCalled();
  });

  it("closes after a successful change", async () => {
    const { save, type, onHide, onChange } = setup();
    await screen.findByText("Current password");
    type("Current password", "old-password");
    type("New password", "new-password");
    type("New password (confirmation)", "new-password");
    fireEvent.click(save());
    await waitFor(() => expect(onHide).toHaveBeenCalled());
    expect(onChange).toHaveBeenCalledWith("old-password", "new-password");
  });

  it("shows a refused new password in words under the New password field", async () => {
    const failing = vi.fn(() =>
      Promise.reject(
        new ApiError(
          "HTTP_ERROR",
          "new_password: must be at least 8 characters long.",
          "/api/v1/change_password",
          400,
          "invalid_request",
        ),
      )
    );
    const { save, type } = setup(failing);
    await screen.findByText("Current password");
    type("Current password", "old-password");
    type("New password", "short");
    type("New password (confirmation)", "short");
    fireEvent.click(save());
    const message = await screen.findByText("New password must be at least 8 characters long.");
    expect(screen.queryByText(/new_password/)).toBeNull();
    expect(screen.getByText("Error changing password")).toBeTruthy();
    const field = screen.getByLabelText("New password", { exact: true });
    expect(field.getAttribute("aria-describedby")).toBe(message.id);
    expect(field.getAttribute("aria-invalid")).toBe("true");
    await waitFor(() => expect(document.activeElement).toBe(field));
  });
});
