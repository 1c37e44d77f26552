import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { ConfirmDialog } from "./ConfirmDialog.tsx";

describe("ConfirmDialog", () => {
  it("opens with focus on Cancel, so Enter cancels instead of confirming", async () => {
    const user = userEvent.setup();
    const onAccept = vi.fn();
    const onHide = vi.fn();
    render(
      <ConfirmDialog
        visible
        destructive
        header="Delete product type Walker?"
        message="Are you sure you want to delete this product type?"
        details={<p>3 devices have this product type and will lose it.</p>}
        onAccept={onAccept}
        onHide={onHide}
      />,
    );
    const cancel = await screen.findByRole("button", { name: "Cancel" });
    await waitFor(() => expect(document.activeElement).toBe(cancel));
    expect(screen.getByText("3 devices have this product type and will lose it.")).toBeTruthy();
    await user.keyboard("{Enter}");
    expect(onHide).toHaveBeenCalledTimes(1);
    expect(onAccept).not.toHaveBeenCalled();
    await user.click(screen.getByRole("button", { name: "OK" }));
    expect(onAccept).toHaveBeenCalledTimes(1);
  });
});
