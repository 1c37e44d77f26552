// Made in a task of its own as soon as this code is loaded (or on first use, if earlier): building one costs a phone
// tens of milliseconds, which in the middle of rendering a page of rows would make that task longer still.
let dateTimeFormat: Intl.DateTimeFormat | null = null;
const dateTime = () =>
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

setTimeout(() => dateTime());

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
  const text = dateTime().format(d);
  return tz ? `${text} ${tz}` : text;
}
