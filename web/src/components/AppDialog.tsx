import { Dialog, type DialogProps } from "primereact/dialog";
import { useRef } from "react";
import { useFocusTrap } from "../lib/useFocusTrap.ts";

/** Fields a dialog opens on: text inputs, text areas, a dropdown's focusable input; not the visually hidden helpers. */
const FIRST_FIELD = [
  "input:not([disabled]):not([type=hidden]):not([type=checkbox]):not([tabindex='-1'])",
  "textarea:not([disabled])",
].map((f) => `.p-dialog-content ${f}`).join(", ");

/** Open overlays a dialog's field can show: a dropdown's or picker's panel, a calendar, a popup menu. */
const OPEN_OVERLAY = [
  ".p-dropdown-panel",
  ".p-multiselect-panel",
  ".p-autocomplete-panel",
  ".p-datepicker:not(.p-datepicker-inline)",
  ".p-overlaypanel",
  ".p-menu-overlay",
  ".p-tieredmenu-overlay",
].join(", ");

/**
 * Escape key presses met while an overlay was open: the overlay closes on them, the dialog under it must not. PrimeReact
 * closes a dialog on any Escape that reaches the document, even one its dropdown has just used.
 */
const overlayEscapes = new WeakSet<Event>();
globalThis.document?.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return;
  const active = document.activeElement;
  if (document.querySelector(OPEN_OVERLAY) || active?.getAttribute("aria-expanded") === "true") overlayEscapes.add(e);
}, true);

/**
 * A modal PrimeReact Dialog that keeps keyboard focus inside while open and closes on Escape
 * (unless `closable` is false, e.g. during an upload). Escape closes only the innermost layer: an open dropdown inside
 * the dialog closes by itself and the dialog, with what was entered, stays.
 *
 * `closable` hides the close icon and makes Escape do nothing, but PrimeReact's own `closable` stays true: PrimeReact
 * unbinds its Escape listener when `closable` turns false and binds it again two renders after it turns true (an effect
 * that sets state, then the effect that binds), so an Escape pressed right after a refused save was lost.
 */
export function AppDialog(props: DialogProps) {
  const { visible, closable = true, children, ...rest } = props;
  const dialogRef = useRef<Dialog>(null);
  const contentRef = useRef<HTMLElement | null>(null);
  // Read when the Escape or the icon arrives: the value of the latest render, not of the render that bound the handler.
  const closableNow = useRef(closable);
  closableNow.current = closable;
  useFocusTrap(contentRef, !!visible);
  return (
    <Dialog
      modal
      draggable={false}
      resizable={false}
      blockScroll
      closeOnEscape
      closable
      showCloseIcon={closable}
      visible={visible}
      ref={dialogRef}
      {...rest}
      onHide={(e?: unknown) => {
        if (!closableNow.current) return;
        if (e instanceof Event && overlayEscapes.has(e)) return;
        // An Escape pressed in another dialog on top (one that cannot be closed, like the sign-in dialog of an ended
        // session) is that dialog's, not this one's.
        const target = e instanceof KeyboardEvent && e.target instanceof Element ? e.target : null;
        const own = dialogRef.current?.getElement();
        if (target?.closest("[role=dialog]") && own && !own.contains(target)) return;
        rest.onHide();
      }}
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
