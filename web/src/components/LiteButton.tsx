import type { ComponentProps } from "react";

export interface LiteButtonProps extends ComponentProps<"button"> {
  label?: string;
  /** PrimeIcons classes, e.g. "pi pi-check". */
  icon?: string;
  outlined?: boolean;
  text?: boolean;
  link?: boolean;
  size?: "small" | "large";
  severity?: "secondary" | "success" | "info" | "warning" | "danger" | "help";
  loading?: boolean;
}

const cls = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(" ");

/**
 * A button with PrimeReact Button's markup and classes (so the theme paints it the same) without its run-time
 * machinery (pass-through props, style injection, ripple, tooltip): for rows that show one per device and for the
 * devices page's first screen, where dozens of PrimeReact Buttons cost a phone tens of milliseconds per render.
 */
export function LiteButton(
  { label, icon, outlined, text, link, size, severity, loading, disabled, className, children, type, ...rest }:
    LiteButtonProps,
) {
  const iconOnly = !!(icon || loading) && !label && !children;
  const shownIcon = loading ? "pi pi-spin pi-spinner" : icon;
  return (
    <button
      type={type ?? "button"}
      aria-label={label ?? rest["aria-label"]}
      {...rest}
      disabled={disabled || loading}
      className={cls(
        className,
        "p-button p-component",
        iconOnly && "p-button-icon-only",
        (disabled || loading) && "p-disabled",
        loading && "p-button-loading",
        outlined && "p-button-outlined",
        link && "p-button-link",
        text && "p-button-text",
        size === "small" && "p-button-sm",
        size === "large" && "p-button-lg",
        severity && `p-button-${severity}`,
      )}
    >
      {shownIcon && (
        <span className={cls("p-button-icon p-c", !!label && "p-button-icon-left", shownIcon)} aria-hidden="true" />
      )}
      {label
        ? <span className="p-button-label p-c">{label}</span>
        : !children && <span className="p-button-label p-c">&nbsp;</span>}
      {children}
    </button>
  );
}
