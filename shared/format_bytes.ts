const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/** The number as it is printed in a unit: whole bytes, else one decimal. */
const shown = (value: number, unit: number) => unit === 0 ? Math.round(value) : Number(value.toFixed(1));

/**
 * A byte count (or a rate in bytes per second) in binary units, as the CLI and the web console show sizes:
 * `512 B`, `1.5 KiB`, `100.0 MiB`, `2.0 GiB`. A value that would print as 1024 of a unit moves to the next one.
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (unit < UNITS.length - 1 && shown(value, unit) >= 1024) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${shown(value, 0)} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
