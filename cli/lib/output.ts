/** What the commands print: the server's JSON with --json, else readable tables and lines. */

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** A plain left-aligned table with a header row; cells are strings already. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  console.log(line(headers));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(row));
}

/** Key-value lines for one entity. */
export function printFields(fields: [string, string][]): void {
  const width = Math.max(...fields.map(([k]) => k.length));
  for (const [k, v] of fields) console.log(`${`${k}:`.padEnd(width + 1)}  ${v}`);
}

/** ISO timestamps shown as `2026-11-22 10:00 UTC`; null as '-'. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "-";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function orDash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === "" ? "-" : String(value);
}
