import type { DropdownPassThroughOptions } from "primereact/dropdown";

/**
 * Pass-through options that make a PrimeReact Dropdown (10.9) pass axe: its hidden native `<select>` (a form
 * helper, never focused) gets the name and leaves the accessibility tree, the mouse-only trigger is hidden from
 * assistive technology (the focusable combobox input opens the list from the keyboard), the root `<div>` stops
 * carrying `aria-activedescendant` (not allowed there; it pointed at `dropdownItem_-1` when nothing was focused),
 * the filter box gets a name, and a disabled option is `aria-disabled`. The focusable input is named by a `<label htmlFor={inputId}>` or `aria-label`.
 */
export function dropdownA11y(label: string): DropdownPassThroughOptions {
  return {
    root: { "aria-activedescendant": undefined } as DropdownPassThroughOptions["root"],
    select: { "aria-label": label, "aria-hidden": true },
    trigger: { "aria-hidden": true, "aria-label": undefined },
    filterInput: { "aria-label": `Search: ${label}` },
    // A choice that cannot be taken (a firmware awaiting approval) says so to assistive technology too.
    item: (o) => ({ "aria-disabled": o?.context.disabled ? true : undefined }),
  };
}
