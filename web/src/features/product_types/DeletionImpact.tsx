import { useQuery } from "@tanstack/react-query";
import { type DeviceLoss, devicesLosingQuery, MAX_COUNTED_DEVICES } from "../devices/api.ts";

/**
 * What a deletion takes from the fleet, in words, e.g. "3 devices have this product type and will lose it.". `count`
 * is undefined while counting and null when the fleet is too large to count.
 */
export function impactText(what: string, count: number | null | undefined, failed: boolean): string {
  if (failed) return `The devices that have ${what} could not be counted; each of them will lose it.`;
  if (count === undefined) return `Counting the devices that have ${what}…`;
  if (count === null) {
    return `Every device that has ${what} will lose it (devices are counted only in fleets of up to ` +
      `${MAX_COUNTED_DEVICES}).`;
  }
  if (count === 0) return `No device has ${what}.`;
  return count === 1 ? `1 device has ${what} and will lose it.` : `${count} devices have ${what} and will lose it.`;
}

/** The consequence line of a delete confirmation, counted when the dialog opens. */
export function DeletionImpact({ loss, what }: { loss: DeviceLoss; what: string }) {
  const count = useQuery(devicesLosingQuery(loss));
  return <p className="m-0" aria-live="polite">{impactText(what, count.data, count.isError)}</p>;
}
