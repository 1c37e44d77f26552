// Made on first use, or in idle time before: building one costs a phone tens of milliseconds, which in the middle of
// rendering a page of rows would block it.
let dateTimeFormat: Intl.DateTimeFormat | null = null;
let zoneFormat: Intl.DateTimeFormat | null = null;
const dateTime = () =>
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
// dateStyle/timeStyle cannot be combined with timeZoneName: the zone's short name comes from a second format.
const zone = () => zoneFormat ??= new Intl.DateTimeFormat(undefined, { timeZoneName: "short" });

// Each in its own idle moment (one long task split in two), before the first dates are shown.
globalThis.requestIdleCallback?.(() => {
  dateTime();
  globalThis.requestIdleCallback(() => zoneName(new Date()));
});

/** Short zone names by UTC offset: one offset is one name in the user's zone, and formatToParts is slow. */
const zoneNames = new Map<number, string>();

/** The user's time zone's short name at that instant ("UTC", "CET", "GMT+2"). */
function zoneName(d: Date): string {
  const offset = d.getTimezoneOffset();
  let name = zoneNames.get(offset);
  if (name === undefined) {
    name = zone().formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? "";
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
  const text = dateTime().format(d);
  return tz ? `${text} ${tz}` : text;
}
