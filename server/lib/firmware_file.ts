import type { FirmwareFiles } from "../files/firmware_files.ts";
import type { ByteRange } from "../files/byte_range.ts";
export { attachmentDisposition } from "../files/attachment.ts";
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
