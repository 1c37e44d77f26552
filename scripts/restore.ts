/**
 * `deno task restore <backupdir>`: puts a backup made by `deno task backup` into DATA_DIR.
 *
 * DATA_DIR must be new or empty (an empty `tmp/` is tolerated) and no server may be running on it.
 * Every file is checked against the manifest first; then files are copied into DATA_DIR/tmp/restore
 * and moved into place with the database last. An interrupted restore leaves only DATA_DIR/tmp,
 * which the server empties at start, or which this script accepts on a second run.
 */
import { join, resolve } from "node:path";
import { pathsFor } from "../server/context.ts";
import { diskFirmwareFiles } from "../server/files/disk_firmware_files.ts";
import type { FirmwareFiles } from "../server/files/firmware_files.ts";
import {
  copyHashed,
  dataDirFromEnv,
  DB_FILE,
  entriesOf,
  fail,
  formatBytes,
  hashFile,
  type Manifest,
  MANIFEST_FILE,
  SECRET_FILE,
} from "./backup_files.ts";

/** A firmware file in a backup: `firmwares/<id>.xz`. */
const FIRMWARE_PATH = /^firmwares\/([A-Za-z0-9_-]+)\.xz$/;

/** Writes a backed-up firmware file through the firmware store, committed under its id. */
async function putFirmware(files: FirmwareFiles, id: string, from: string): Promise<{ size: number; sha256: string }> {
  const put = files.put(id);
  try {
    for await (const chunk of (await Deno.open(from, { read: true })).readable) await put.write(chunk);
    const written = await put.finish();
    await put.commit();
    return written;
  } finally {
    await put.abort();
  }
}

function readManifest(backupDir: string): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Deno.readTextFileSync(join(backupDir, MANIFEST_FILE)));
  } catch {
    fail(`Restore failed: ${join(backupDir, MANIFEST_FILE)} is missing or unreadable; is this a complete backup?`);
  }
  if (manifest.format !== 1 || !Array.isArray(manifest.files) || !manifest.files.some((f) => f.path === DB_FILE)) {
    fail(`Restore failed: ${MANIFEST_FILE} is not a manifest written by deno task backup.`);
  }
  for (const f of manifest.files) {
    // Paths come from a file on disk: accept only the layout backup.ts writes.
    if (!(f.path === DB_FILE || f.path === SECRET_FILE || FIRMWARE_PATH.test(f.path))) {
      fail(`Restore failed: unexpected path ${JSON.stringify(f.path)} in ${MANIFEST_FILE}.`);
    }
  }
  return manifest;
}

async function main() {
  if (Deno.env.get("DATABASE_URL")) {
    // docs/REQUIREMENTS.md §10: with PostgreSQL the database is restored with its own tools (docs/SCALING.md, "Backup").
    console.error(
      "deno task restore fills the SQLite database of DATA_DIR; with DATABASE_URL set, restore PostgreSQL with its own tools instead: " +
        'pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" console.dump with every server stopped, and put the ' +
        "firmware files back into DATA_DIR/firmwares. See docs/SCALING.md.",
    );
    Deno.exit(2);
  }
  const source = Deno.args[0];
  if (!source || Deno.args.length > 1 || source.startsWith("-")) {
    console.error("Usage: deno task restore <backupdir>   (into DATA_DIR, default ./data, which must be empty)");
    Deno.exit(2);
  }
  if (Deno.env.get("S3_BUCKET")) {
    console.error(
      "deno task restore fills DATA_DIR; with S3_BUCKET restore the firmware files with the bucket's own tools " +
        "(docs/SCALING.md).",
    );
    Deno.exit(2);
  }
  const backupDir = resolve(source);
  const dataDir = resolve(dataDirFromEnv());
  const manifest = readManifest(backupDir);

  let existing: string[];
  try {
    existing = entriesOf(dataDir);
  } catch {
    fail(`Restore failed: DATA_DIR ${dataDir} is not a directory.`);
  }
  if (existing.some((name) => name !== "tmp")) {
    fail(`Restore failed: DATA_DIR ${dataDir} is not empty; restore into a new or empty directory.`);
  }

  for (const f of manifest.files) {
    let actual;
    try {
      actual = await hashFile(join(backupDir, f.path));
    } catch {
      fail(`Restore failed: ${f.path} is missing from the backup.`);
    }
    if (actual.size !== f.size || actual.sha256 !== f.sha256) {
      fail(`Restore failed: ${f.path} does not match the manifest (size or sha256 differ); the backup is damaged.`);
    }
  }

  // Staged as a DATA_DIR of its own under tmp/ (emptied at start), the firmware files written by the firmware store.
  const live = pathsFor(dataDir);
  const staging = pathsFor(join(live.tmp, "restore"));
  await Deno.remove(staging.data, { recursive: true }).catch(() => {});
  for (const dir of [staging.firmwares, staging.tmp]) await Deno.mkdir(dir, { recursive: true });
  await Deno.chmod(dataDir, 0o700);
  const firmwareFiles = diskFirmwareFiles(staging);
  for (const f of manifest.files) {
    const id = FIRMWARE_PATH.exec(f.path)?.[1];
    const copied = id === undefined
      ? await copyHashed(join(backupDir, f.path), join(staging.data, f.path))
      : await putFirmware(firmwareFiles, id, join(backupDir, f.path));
    if (copied.sha256 !== f.sha256) fail(`Restore failed: ${f.path} changed while it was copied.`);
  }
  await Deno.rename(staging.firmwares, live.firmwares);
  if (manifest.files.some((f) => f.path === SECRET_FILE)) {
    await Deno.rename(join(staging.data, SECRET_FILE), join(dataDir, SECRET_FILE));
  }
  await Deno.rename(join(staging.data, DB_FILE), live.db); // last: the data dir is now complete
  await Deno.remove(staging.data, { recursive: true });

  console.log(`Restored the backup of ${manifest.createdAt} from ${backupDir} into ${dataDir}:`);
  for (const f of manifest.files) console.log(`  ${f.path}  ${formatBytes(f.size)}  sha256 ${f.sha256}`);
  const c = manifest.counts;
  console.log(
    `Contents: ${c.operators} operator(s), ${c.productTypes} product type(s), ${c.treatments} treatment(s), ` +
      `${c.devices} device(s), ${c.firmwares} firmware(s); schema version ${manifest.schemaVersion}.`,
  );
  if (!manifest.files.some((f) => f.path === SECRET_FILE)) {
    console.log("Note: the backup holds no jwt_secret; start the server with the JWT_SECRET it used.");
  }
  console.log("Start the server on this DATA_DIR; migrations newer than the backup run at start.");
}

if (import.meta.main) await main();
