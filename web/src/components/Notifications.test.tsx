import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { useEffect } from "react";
import { useNotify } from "../lib/notify.ts";
import { Notifications } from "./Notifications.tsx";

function Removal({ undo }: { undo: () => void }) {
  const notify = useNotify();
  useEffect(() => notify("Treatment removed", "Knee relief removed from device unit-1.", undo), []);
  return null;
}

describe("Notifications", () => {
  it("shows a removal with Undo at the bottom right; Undo runs once and closes the toast", async () => {
    const user = userEvent.setup();
    const undo = vi.fn();
    render(
      <>
        <Notifications />
        <Removal undo={undo} />
      </>,
    );
    expect(await screen.findByText("Treatment removed")).toBeTruthy();
    expect(screen.getByText("Knee relief removed from device unit-1.")).toBeTruthy();
    expect(document.querySelector(".p-toast-bottom-right")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Undo" }));
    expect(undo).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(screen.queryByRole("button", { name: "Undo" })).toBeNull());
  });
});
