import { Dialog, type DialogProps } from "primereact/dialog";
import { useRef } from "react";
import { useFocusTrap } from "../lib/useFocusTrap.ts";

/** Fields a dialog opens on: text inputs, text areas, a dropdown's focusable input; not the visually hidden helpers. */
const FIRST_FIELD = [
  "input:not([disabled]):not([type=hidden]):not([type=checkbox]):not([tabindex='-1'])",
  "textarea:not([disabled])",
].map((f) => `.p-dialog-content ${f}`).join(", ");

/**
 * A modal PrimeReact Dialog that keeps keyboard focus inside while open and closes on Escape
 * (unless `closable` is false, e.g. during an upload).
 */
export function AppDialog(props: DialogProps) {
  const { visible, closable = true, children, ...rest } = props;
  const dialogRef = useRef<Dialog>(null);
  const contentRef = useRef<HTMLElement | null>(null);
  useFocusTrap(contentRef, !!visible);
  return (
    <Dialog
      modal
      draggable={false}
      resizable={false}
      blockScroll
      closeOnEscape={closable}
      closable={closable}
      visible={visible}
      ref={dialogRef}
      {...rest}
      onShow={() => {
        // The dialog element wraps header, content and footer: trap focus in all of it.
        const root = dialogRef.current?.getElement() ?? null;
        contentRef.current = root;
        // Focus goes to a button marked autoFocus (Cancel of a confirmation), else to the first field, never to the
        // close icon PrimeReact picks (React's autoFocus ran before the dialog was shown and was overridden).
        const target = root?.querySelector<HTMLElement>("[data-pc-autofocus='true']") ??
          root?.querySelector<HTMLElement>(FIRST_FIELD);
        const active = document.activeElement;
        if (target && (!root?.contains(active) || active?.classList.contains("p-dialog-header-close"))) target.focus();
        rest.onShow?.();
      }}
    >
      {children}
    </Dialog>
  );
}
