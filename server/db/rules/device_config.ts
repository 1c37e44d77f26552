/** How a device's configuration is put together, shared by every engine. */
import type { VersionInfo } from "../../../shared/schemas/device.ts";

/** Canonical JSON of a VersionInfo (fixed member order), so equal infos compare equal as text. */
export const versionInfoJson = (v: VersionInfo) => JSON.stringify({ app: v.app, os: v.os, channels: v.channels });

/**
 * A device's treatments from those of its modules (module order, then order inside the module) followed by its
 * additional ones: each treatment once, at its first place.
 */
export function firstPlaces<T>(treatments: readonly T[], id: (t: T) => string): T[] {
  const seen = new Set<string>();
  return treatments.filter((t) => {
    const key = id(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
