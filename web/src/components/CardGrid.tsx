import type { ReactNode } from "react";

/** Cards side by side, as many 24rem-or-wider columns as fit, each card as tall as its content. */
export function CardGrid({ children }: { children: ReactNode }) {
  return (
    <div
      style={{
        display: "grid",
        gridTemplateColumns: "repeat(auto-fill, minmax(24rem, 1fr))",
        gap: "1rem",
        alignItems: "start",
      }}
    >
      {children}
    </div>
  );
}
