import type { ReactNode } from "react";

/** Cards side by side, as many 24rem-or-wider columns as fit, each card as tall as its content. */
export function CardGrid({ children }: { children: ReactNode }) {
  return (
    <div
      style={{
        display: "grid",
        // min(24rem, 100%): one full-width column on a phone, never wider than the page.
        gridTemplateColumns: "repeat(auto-fill, minmax(min(24rem, 100%), 1fr))",
        gap: "1rem",
        alignItems: "start",
      }}
    >
      {children}
    </div>
  );
}
