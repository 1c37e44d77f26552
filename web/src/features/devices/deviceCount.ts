import type { Device, DeviceList } from "../../../../shared/schemas/mod.ts";

/** The largest page the API serves. */
const PAGE = 100;
/**
 * The devices list has no filter by product type or module, so counting reads every page: done for fleets up to this
 * size (five requests), not beyond.
 */
export const MAX_COUNTED_DEVICES = 500;

/**
 * How many devices match, reading the devices list page by page; null when the fleet is too large to count this way.
 */
export async function countDevices(
  matches: (d: Device) => boolean,
  listPage: (page: number, rowsPerPage: number) => Promise<DeviceList>,
): Promise<number | null> {
  const first = await listPage(0, PAGE);
  if (first.total > MAX_COUNTED_DEVICES) return null;
  let count = first.data.filter(matches).length;
  const pages = Math.ceil(first.total / PAGE);
  for (let page = 1; page < pages; page++) count += (await listPage(page, PAGE)).data.filter(matches).length;
  return count;
}
