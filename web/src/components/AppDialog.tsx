import { Dialog, type DialogProps } from "primereact/dialog";
import { useRef } from "react";
import { useFocusTrap } from "../lib/useFocusTrap.ts";

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
        // A button marked autoFocus gets the focus (e.g. Cancel of a confirmation), not the close icon.
        const marked = root?.querySelector<HTMLElement>("[data-pc-autofocus='true']");
        const active = document.activeElement;
        if (marked && (!root?.contains(active) || active?.classList.contains("p-dialog-header-close"))) marked.focus();
        rest.onShow?.();
      }}
    >
      {children}
    </Dialog>
  );
}
