/** Checks a file before it is sent (extension, magic bytes) and streams it to the shared client. */
import type { UploadSource } from "../../shared/client.ts";
import { UsageError } from "./errors.ts";

export interface FileCheck {
  extension: string;
  magic: readonly number[];
  /** What the file should be, for messages: "an xz file". */
  kind: string;
}

/** Returns a source that opens the file only when the upload starts and reads it chunk by chunk. */
export async function checkedUploadSource(path: string, check: FileCheck): Promise<UploadSource> {
  const name = path.split("/").pop() ?? path;
  // Like the server: the extension in any case, after a non-empty base name.
  if (!name.toLowerCase().endsWith(check.extension) || name.length <= check.extension.length) {
    throw new UsageError(`${path}: the file name must end in ${check.extension}.`);
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new UsageError(`${path}: no such file.`);
    if (err instanceof Deno.errors.PermissionDenied) throw new UsageError(`${path}: permission denied.`);
    throw err;
  }
  if (!info.isFile) throw new UsageError(`${path}: not a regular file.`);
  const head = await readHead(path, check.magic.length);
  if (head.length < check.magic.length || check.magic.some((b, i) => head[i] !== b)) {
    throw new UsageError(`${path}: not ${check.kind} (its first bytes are not ${hex(check.magic)}).`);
  }
  return {
    name,
    size: info.size,
    stream: () => Deno.openSync(path, { read: true }).readable,
  };
}

async function readHead(path: string, length: number): Promise<Uint8Array> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.PermissionDenied) throw new UsageError(`${path}: permission denied.`);
    throw err;
  }
  try {
    const buf = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const n = await file.read(buf.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return buf.subarray(0, filled);
  } finally {
    file.close();
  }
}

function hex(bytes: readonly number[]): string {
  return bytes.map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");
}
