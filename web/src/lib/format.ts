// Made on first use: building a format costs milliseconds on a phone, and the first screen may show no date.
let formats: { dateTime: Intl.DateTimeFormat; zone: Intl.DateTimeFormat } | null = null;
const format = () =>
  formats ??= {
    dateTime: new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }),
    // dateStyle/timeStyle cannot be combined with timeZoneName: the zone's short name comes from a second format.
    zone: new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }),
  };

/** Short zone names by UTC offset: one offset is one name in the user's zone, and formatToParts is slow. */
const zoneNames = new Map<number, string>();

/** The user's time zone's short name at that instant ("UTC", "CET", "GMT+2"). */
function zoneName(d: Date): string {
  const offset = d.getTimezoneOffset();
  let name = zoneNames.get(offset);
  if (name === undefined) {
    name = format().zone.formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? "";
    zoneNames.set(offset, name);
  }
  return name;
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
  const text = format().dateTime.format(d);
  return tz ? `${text} ${tz}` : text;
}
