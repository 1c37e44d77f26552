import { describe, expect, it, vi } from "vitest";
import { act, render } from "@testing-library/react";
import { useLayoutEffect } from "react";
import { AppDialog } from "./AppDialog.tsx";

function pressEscape() {
  const at = document.activeElement ?? document.body;
  at.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", code: "Escape", bubbles: true }));
}

/** Presses Escape in the commit that renders it with `press`: before any effect of that render has run. */
function EscapeOnCommit({ press }: { press: boolean }) {
  useLayoutEffect(() => {
    if (press) pressEscape();
  }, [press]);
  return null;
}

describe("AppDialog", () => {
  it("ignores Escape while not closable and closes on an Escape pressed right after it is closable again", () => {
    const onHide = vi.fn();
    const dialog = (closable: boolean) => (
      <AppDialog visible header="Change password" closable={closable} onHide={onHide}>
        <EscapeOnCommit press={closable} />
      </AppDialog>
    );
    const { rerender } = render(dialog(false));
    act(() => pressEscape());
    expect(onHide).not.toHaveBeenCalled();
    expect(document.querySelector(".p-dialog-header-close")).toBeNull();
    // The save failed: the same commit that makes the dialog closable meets an Escape (a user quick on the key).
    act(() => rerender(dialog(true)));
    expect(onHide).toHaveBeenCalledTimes(1);
    expect(document.querySelector(".p-dialog-header-close")).not.toBeNull();
  });

  it("lets an Escape in a dialog that cannot be closed leave the dialog under it open", () => {
    const under = vi.fn();
    render(
      <>
        <AppDialog visible header="Edit" onHide={under}>
          <input aria-label="Name" />
        </AppDialog>
        <AppDialog visible header="Sign in again" closable={false} onHide={() => {}}>
          <input aria-label="Password" />
        </AppDialog>
      </>,
    );
    // Focus is in the dialog on top, as the sign-in dialog's focus trap keeps it.
    act(() => (document.querySelector("input[aria-label=Password]") as HTMLInputElement).focus());
    act(() => pressEscape());
    expect(under).not.toHaveBeenCalled();
  });
});
