import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { devicesHref, overviewQuery } from "./api.ts";

/** The menu's badges are read again every minute (and with every device change, as the overview is). */
const BADGE_REFRESH_MS = 60_000;

/**
 * Under the menu's "Devices": how many devices wait for admission and how many were last seen more than 7 days ago,
 * each a link to the devices list filtered to them; nothing while there are none.
 */
export function DeviceNavBadges() {
  const o = useQuery({ ...overviewQuery(), refetchInterval: BADGE_REFRESH_MS }).data;
  const pending = o?.devices.pending ?? 0;
  const stale = o?.devices.stale ?? 0;
  if (!pending && !stale) return null;
  return (
    <div className="nav-badges">
      {pending > 0 && (
        <Link
          href={devicesHref({ admission: "pending" })}
          className="nav-badge pending"
          aria-label={`${pending} pending: device${pending === 1 ? "" : "s"} waiting for admission`}
          title="Waiting for admission"
        >
          {pending} pending
        </Link>
      )}
      {stale > 0 && (
        <Link
          href={devicesHref({ seen: "stale" })}
          className="nav-badge stale"
          aria-label={`${stale} stale: device${stale === 1 ? "" : "s"} not seen for more than 7 days`}
          title="Not seen for more than 7 days"
        >
          {stale} stale
        </Link>
      )}
    </div>
  );
}
