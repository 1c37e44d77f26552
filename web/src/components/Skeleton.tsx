import type { CSSProperties } from "react";

/**
 * A grey bar standing in for text that is still loading: one line tall (it holds a no-break space), so rows keep
 * their final height and nothing moves when the data arrives. Hidden from assistive technology (the table or list
 * says aria-busy instead).
 */
export function Skeleton({ width = "70%", style }: { width?: string; style?: CSSProperties }) {
  return <span className="skeleton" aria-hidden="true" style={{ width, ...style }}>&nbsp;</span>;
}

/** Widths that vary from row to row, so skeleton rows read as rows of text. */
export const skeletonWidth = (row: number, column = 0) => `${45 + ((row * 7 + column * 13) % 40)}%`;
