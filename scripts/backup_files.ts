/**
 * What backup.ts and restore.ts share: the layout of a backup directory and hashed copies.
 *
 * A backup directory has the layout of a DATA_DIR plus a manifest written last:
 *   console.sqlite3        the database (a self-contained file, journal mode DELETE)
 *   firmwares/<id>.xz      every firmware file the database lists
 *   jwt_secret             the token signing secret, when DATA_DIR holds it
 *   backup.json            Manifest: every file above with its size and sha256
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";

export const DB_FILE = "console.sqlite3";
export const SECRET_FILE = "jwt_secret";
export const FIRMWARES_DIR = "firmwares";
export const MANIFEST_FILE = "backup.json";

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  format: 1;
  createdAt: string;
  sourceDataDir: string;
  schemaVersion: number;
  counts: Record<string, number>;
  files: ManifestFile[];
}

/** DATA_DIR as the server reads it (docs/REQUIREMENTS.md §1). */
export function dataDirFromEnv(): string {
  return Deno.env.get("DATA_DIR")?.trim() || "./data";
}

export function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

/** Entries of a directory; [] when it does not exist; throws when the path is not a directory. */
export function entriesOf(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

/** Copies a file in chunks (memory stays flat), syncs it to disk and returns its size and sha256. */
export async function copyHashed(from: string, to: string, mode = 0o600): Promise<{ size: number; sha256: string }> {
  const src = await Deno.open(from, { read: true });
  return await writeHashed(src.readable, to, mode);
}

/** Writes a stream to a new file (memory stays flat), syncs it to disk and returns its size and sha256. */
export async function writeHashed(
  from: ReadableStream<Uint8Array>,
  to: string,
  mode = 0o600,
): Promise<{ size: number; sha256: string }> {
  await Deno.mkdir(dirname(to), { recursive: true });
  const hash = createHash("sha256");
  let size = 0;
  using dst = await Deno.open(to, { write: true, createNew: true, mode });
  for await (const chunk of from) {
    hash.update(chunk);
    size += chunk.length;
    for (let off = 0; off < chunk.length;) off += await dst.write(chunk.subarray(off));
  }
  await dst.sync();
  return { size, sha256: hash.digest("hex") };
}

/** Size and sha256 of a file, read in chunks. */
export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  let size = 0;
  using file = await Deno.open(path, { read: true });
  const buf = new Uint8Array(1 << 20);
  for (let n = await file.read(buf); n !== null; n = await file.read(buf)) {
    hash.update(buf.subarray(0, n));
    size += n;
  }
  return { size, sha256: hash.digest("hex") };
}

export const firmwarePath = (root: string, id: string) => join(root, FIRMWARES_DIR, `${id}.xz`);

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024, i = 0;
  while (v >= 1024 && i < units.length - 1) v /= 1024, i++;
  return `${v.toFixed(1)} ${units[i]}`;
}
