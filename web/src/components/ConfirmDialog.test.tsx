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

describe("ConfirmDialog with buttons named for the action", () => {
  it("names its buttons, offers the alternative (closing first) and can refuse to accept", async () => {
    const user = userEvent.setup();
    const onAccept = vi.fn();
    const onHide = vi.fn();
    const instead = vi.fn();
    const { rerender } = render(
      <ConfirmDialog
        visible
        header="Cancel rollout fw-2?"
        message="3 devices that have not installed fw-2 return to the default firmware."
        acceptLabel="Cancel rollout"
        cancelLabel="Keep running"
        alternative={{ label: "Start a staged rollout instead", onClick: instead }}
        onAccept={onAccept}
        onHide={onHide}
      />,
    );
    const keep = await screen.findByRole("button", { name: "Keep running" });
    await waitFor(() => expect(document.activeElement).toBe(keep));
    expect(screen.queryByRole("button", { name: "OK" })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Start a staged rollout instead" }));
    expect(onHide).toHaveBeenCalledTimes(1);
    expect(instead).toHaveBeenCalledTimes(1);
    rerender(
      <ConfirmDialog
        visible
        header="Delete firmware fw-2?"
        message="Are you sure you want to delete this firmware?"
        acceptLabel="Delete firmware"
        acceptDisabled
        onAccept={onAccept}
        onHide={onHide}
      />,
    );
    expect((screen.getByRole("button", { name: "Delete firmware" }) as HTMLButtonElement).disabled).toBe(true);
    expect(onAccept).not.toHaveBeenCalled();
  });
});
