/** CSV as the exports write it (GET devices.csv, GET audit.csv). */

/** One cell: RFC 4180 quoting, and a leading `'` for cells a spreadsheet would take for a formula. */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let s = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One CRLF-terminated line of cells. */
export const csvLine = (cells: (string | number | null)[]): string => cells.map(csvCell).join(",") + "\r\n";
