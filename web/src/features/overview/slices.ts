/** One slice of an overview distribution: what it is, how many devices, and the devices list filtered to them. */
export interface Slice {
  label: string;
  devices: number;
  /** null: no filter finds these devices (an unknown app version). */
  href: string | null;
}

/** Slice colours (each ≥ 3:1 against white, for the chart's marks). */
export const SLICE_COLORS = ["#078686", "#c77700", "#5b5fc7", "#b5446e", "#3f7d20", "#8a6d3b", "#2f6fb0", "#767676"];
