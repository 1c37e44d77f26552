import { type RefObject, useEffect } from "react";

const FOCUSABLE = [
  "a[href]",
  "button:not([disabled])",
  "input:not([disabled]):not([type=hidden])",
  "select:not([disabled])",
  "textarea:not([disabled])",
  "[tabindex]:not([tabindex='-1'])",
].join(",");

/** Keeps Tab and Shift+Tab inside the element while active (modal dialogs). */
export function useFocusTrap(ref: RefObject<HTMLElement | null>, active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const onKeyDown = (e: KeyboardEvent) => {
      const root = ref.current;
      if (e.key !== "Tab" || !root) return;
      const items = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) =>
        el.offsetParent !== null || el === document.activeElement
      );
      if (!items.length) return;
      const first = items[0], last = items[items.length - 1];
      const current = document.activeElement as HTMLElement | null;
      if (!current || current === document.body) {
        e.preventDefault();
        first.focus();
      } else if (!root.contains(current)) {
        // Focus is in an overlay the dialog opened (a dropdown panel appended to body): let it handle Tab.
        return;
      } else if (e.shiftKey && current === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && current === last) {
        e.preventDefault();
        first.focus();
      }
    };
    // Focus that leaves a modal dialog for the page behind it (e.g. a popup menu that closes after its item opened
    // the dialog gives focus back to its button) comes back to where it was in the dialog. Overlays the dialog opens
    // itself (a dropdown's panel appended to body) may take it.
    let lastInside: HTMLElement | null = null;
    const onFocusIn = (e: FocusEvent) => {
      const root = ref.current;
      const target = e.target as HTMLElement | null;
      if (!root?.isConnected || !target) return;
      if (root.contains(target)) {
        lastInside = target;
        return;
      }
      if (target.closest(".p-dropdown-panel, .p-connected-overlay, .p-overlaypanel, [role=dialog]")) return;
      const back = lastInside?.isConnected ? lastInside : root.querySelector<HTMLElement>(FOCUSABLE);
      back?.focus();
    };
    document.addEventListener("keydown", onKeyDown, true);
    document.addEventListener("focusin", onFocusIn, true);
    return () => {
      document.removeEventListener("keydown", onKeyDown, true);
      document.removeEventListener("focusin", onFocusIn, true);
    };
  }, [ref, active]);
}
