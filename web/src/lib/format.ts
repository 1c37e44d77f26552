const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
// dateStyle/timeStyle cannot be combined with timeZoneName: the zone's short name comes from a second format.
const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" });

/** The user's time zone's short name at that instant ("UTC", "CET", "GMT+2"). */
function zoneName(d: Date): string {
  return zone.formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? "";
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
  return tz ? `${dateTime.format(d)} ${tz}` : dateTime.format(d);
}
