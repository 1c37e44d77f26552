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

/**
 * How many records a CSV stream holds past its header row (RFC 4180: a line break inside quotes is part of a cell).
 * Reads chunk by chunk, so a large export is never held whole.
 */
export async function countCsvRecords(body: ReadableStream<Uint8Array> | null): Promise<number> {
  const QUOTE = 34, LF = 10;
  let quoted = false;
  let lines = 0;
  let pending = false; // bytes after the last line break (a last line without one still counts)
  const reader = body?.getReader();
  for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
    const chunk = r.value;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === QUOTE) quoted = !quoted;
      if (b === LF && !quoted) {
        lines++;
        pending = false;
      } else pending = true;
    }
  }
  return Math.max(0, lines + (pending ? 1 : 0) - 1);
}
