/**
 * A firmware's download as devices get it (docs/REQUIREMENTS.md §6, and hawkBit DDI's artifact of §18): ETag (the
 * sha256), If-None-Match (304), Range and If-Range (206, 416), HEAD without the body, and with redirect a 302 to a
 * presigned URL of the bucket (which honours Range itself).
 */
import type { Context } from "hono";
import type { FirmwareFiles } from "../files/firmware_files.ts";
import { etagMatches, parseRange } from "./byte_range.ts";
import { attachmentDisposition, openFirmwareFile } from "./firmware_file.ts";

export interface DownloadOptions {
  files: FirmwareFiles;
  /** FIRMWARE_DOWNLOAD=redirect, with the presigned URL's lifetime. */
  redirect: { ttlSeconds: number; onRedirect: () => void } | null;
  contentType: string;
  /** The body as sent (counted in the metrics). */
  counted: (body: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;
}

export async function firmwareDownload(
  c: Context,
  firmware: { _id: string; name: string; size: number; sha256: string },
  o: DownloadOptions,
): Promise<Response> {
  const etag = `"${firmware.sha256}"`;
  const common = { "ETag": etag, "Accept-Ranges": "bytes", "Cache-Control": "no-cache" };
  if (etagMatches(c.req.header("if-none-match"), etag)) return c.body(null, 304, common);

  if (o.redirect) {
    const url = await o.files.downloadUrl(firmware._id, firmware.name, o.redirect.ttlSeconds);
    if (url) {
      o.redirect.onRedirect();
      return c.body(null, 302, { ...common, "Cache-Control": "no-store", Location: url });
    }
  }
  const size = firmware.size;
  const headers: Record<string, string> = {
    ...common,
    "Content-Type": o.contentType,
    "Content-Disposition": attachmentDisposition(firmware.name),
  };

  const ifRange = c.req.header("if-range");
  const range = ifRange !== undefined && ifRange.trim() !== etag ? null : parseRange(c.req.header("range"), size);
  if (range === "unsatisfiable") {
    return c.json(
      {
        error: "range_not_satisfiable",
        msg: `The requested range is not satisfiable; the firmware has ${size} bytes.`,
      },
      416,
      { ...common, "Content-Range": `bytes */${size}` },
    );
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  headers["Content-Length"] = String(end - start + 1);
  if (range) headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
  // HEAD too: a firmware whose file is missing is 404 either way.
  const body = await openFirmwareFile(o.files, firmware, { start, end });
  if (c.req.method === "HEAD") {
    await body.cancel();
    return c.body(null, range ? 206 : 200, headers);
  }
  return c.body(o.counted(body), range ? 206 : 200, headers);
}
