import type { FirmwareFiles } from "../files/firmware_files.ts";
import type { ByteRange } from "./byte_range.ts";
import { notFound } from "../errors.ts";

/** A firmware's stored bytes (a range of them, or all) as a stream; 404 when its file is missing. */
export async function openFirmwareFile(
  files: FirmwareFiles,
  firmware: { _id: string; name: string },
  range?: ByteRange,
): Promise<ReadableStream<Uint8Array>> {
  const body = await files.open(firmware._id, range);
  if (!body) throw notFound(`The file of firmware ${firmware.name} is missing.`);
  return body;
}

/** RFC 6266: an ASCII fallback `filename` plus the exact name as RFC 8187 `filename*`. */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const exact = encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
