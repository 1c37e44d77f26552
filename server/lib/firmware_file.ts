import type { Paths } from "../context.ts";
import { firmwarePath } from "./firmware_path.ts";
import { notFound } from "../errors.ts";

/** Opens a firmware's stored file for streaming; 404 when the file is missing from disk. */
export async function openFirmwareFile(
  paths: Paths,
  firmware: { _id: string; name: string },
): Promise<{ file: Deno.FsFile; size: number }> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(firmwarePath(paths, firmware._id), { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw notFound(`The file of firmware ${firmware.name} is missing.`);
    throw err;
  }
  return { file, size: (await file.stat()).size };
}

/** RFC 6266: an ASCII fallback `filename` plus the exact name as RFC 8187 `filename*`. */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const exact = encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
