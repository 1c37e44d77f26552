const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * en-US's medium date and short time ("Nov 28, 2026, 3:42 PM"), as `Intl.DateTimeFormat` writes it (with a plain
 * space before AM/PM), written by code: building the Intl format was one task of 70–200 ms in a phone's start
 * (Lighthouse's 4× slowdown, a loaded machine), longer than all of React's slices of the devices page (issue 34).
 */
export function enUsDateTime(d: Date): string {
  const h = d.getHours();
  const minutes = String(d.getMinutes()).padStart(2, "0");
  return `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}, ${h % 12 || 12}:${minutes} ${
    h < 12 ? "AM" : "PM"
  }`;
}

/** The console's language is the browser's: its dates need no Intl format. */
const byCode = globalThis.navigator?.language === "en-US";

// Other locales: made in a task of its own as soon as this code is loaded (or on first use, if earlier), not in the
// middle of rendering a page of rows.
let dateTimeFormat: Intl.DateTimeFormat | null = null;
const dateTime = () =>
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

if (!byCode) setTimeout(() => dateTime());

/**
 * The user's zone at that instant as its offset from UTC ("UTC", "UTC+2", "UTC-3:30"). Not the zone's name ("CET"):
 * a format with `timeZoneName` loads the time zone names, one task of over 100 ms on a phone, in the middle of the
 * devices page's first rows (issue 34); an offset is also never ambiguous (CST is in America and in China).
 */
function zoneName(d: Date): string {
  const east = -d.getTimezoneOffset();
  if (east === 0) return "UTC";
  const abs = Math.abs(east);
  const minutes = abs % 60;
  return `UTC${east > 0 ? "+" : "-"}${Math.floor(abs / 60)}${minutes ? `:${String(minutes).padStart(2, "0")}` : ""}`;
}

/**
 * Medium date with short time in the user's locale, then the time zone (operators in several zones read the same
 * instant); '-' when absent or unreadable.
 */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "-";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "-";
  const tz = zoneName(d);
  const text = byCode ? enUsDateTime(d) : dateTime().format(d);
  return tz ? `${text} ${tz}` : text;
}
