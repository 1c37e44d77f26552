/**
 * `deno task backup <dir>`: a consistent online backup of DATA_DIR (works while the server runs).
 *
 * 1. The database is copied with SQLite's online backup API in one step (one read transaction:
 *    a consistent snapshot, writers are not blocked in WAL mode).
 * 2. The firmware files that snapshot lists are copied and checked against their recorded size and
 *    sha256 (files are immutable once in place; one deleted after the snapshot makes us snapshot again).
 * 3. jwt_secret is copied when DATA_DIR holds it.
 * Everything is written to `<dir>.partial-*` and renamed to <dir> at the end: a backup directory
 * exists only when complete. <dir> must not exist or be empty.
 */
import { type FirmwareRow, snapshotDatabase } from "../server/db/mod.ts";
import { pathsFor } from "../server/context.ts";
import { diskFirmwareFiles } from "../server/files/disk_firmware_files.ts";
import type { FirmwareFiles } from "../server/files/firmware_files.ts";
import { basename, dirname, join, resolve } from "node:path";
import {
  copyHashed,
  dataDirFromEnv,
  DB_FILE,
  entriesOf,
  fail,
  firmwarePath,
  formatBytes,
  hashFile,
  type Manifest,
  MANIFEST_FILE,
  type ManifestFile,
  SECRET_FILE,
  writeHashed,
} from "./backup_files.ts";

const ATTEMPTS = 3;

class FirmwareGone extends Error {}

async function copyFirmware(files: FirmwareFiles, staging: string, fw: FirmwareRow): Promise<ManifestFile> {
  const source = await files.open(fw.id);
  if (!source) throw new FirmwareGone(fw.name);
  const copied = await writeHashed(source, firmwarePath(staging, fw.id), 0o640);
  if (copied.size !== fw.size || copied.sha256 !== fw.sha256) {
    fail(
      `Backup failed: firmware ${fw.name} (${fw.id}.xz) does not match its record (size or sha256 differ); the file in DATA_DIR is damaged.`,
    );
  }
  return { path: `firmwares/${fw.id}.xz`, ...copied };
}

async function main() {
  if (Deno.env.get("DATABASE_URL")) {
    // docs/REQUIREMENTS.md §10: with PostgreSQL the database is backed up with its own tools (docs/SCALING.md, "Backup").
    console.error(
      "deno task backup copies the SQLite database of DATA_DIR; with DATABASE_URL set, back up PostgreSQL with its own tools instead: " +
        'pg_dump --format=custom --file=console.dump "$DATABASE_URL" (consistent while the servers run), and copy DATA_DIR/firmwares ' +
        "of the replica that holds them beside it; JWT_SECRET, if set, is yours to keep. See docs/SCALING.md.",
    );
    Deno.exit(2);
  }
  const target = Deno.args[0];
  if (!target || Deno.args.length > 1 || target.startsWith("-")) {
    console.error("Usage: deno task backup <dir>   (DATA_DIR names the data directory, default ./data)");
    Deno.exit(2);
  }
  if (Deno.env.get("S3_BUCKET")) {
    console.error(
      "deno task backup copies DATA_DIR; with S3_BUCKET the firmware files are in the bucket: back them up with the " +
        "bucket's own tools (versioning or replication, or `aws s3 sync s3://<bucket>/<prefix>firmwares/ <dir>`) " +
        "beside this database backup (docs/SCALING.md).",
    );
    Deno.exit(2);
  }
  const dataDir = resolve(dataDirFromEnv());
  const dest = resolve(target);
  const live = pathsFor(dataDir);
  const dbFile = live.db;
  const firmwareFiles = diskFirmwareFiles(live);
  try {
    Deno.statSync(dbFile);
  } catch {
    fail(`Backup failed: no database at ${dbFile} (set DATA_DIR to the server's data directory).`);
  }
  let existing: string[];
  try {
    existing = entriesOf(dest);
  } catch {
    fail(`Backup failed: ${dest} is not a directory.`);
  }
  if (existing.length) fail(`Backup failed: ${dest} is not empty; give a new or empty directory.`);
  const within = (dir: string) => dest === dir || dest.startsWith(dir + "/");
  if (dest === dataDir || within(live.tmp) || within(live.firmwares)) {
    // tmp/ is emptied at every start and firmwares/ is swept of unknown files.
    fail(`Backup failed: ${dest} would mix with the live data; choose a directory outside ${dataDir}.`);
  }

  await Deno.mkdir(dirname(dest), { recursive: true });
  const staging = await Deno.makeTempDir({ dir: dirname(dest), prefix: `${basename(dest)}.partial-` });
  try {
    await Deno.chmod(staging, 0o700); // the backup holds password hashes and the signing secret
    let snapshot;
    const files: ManifestFile[] = [];
    for (let attempt = 1;; attempt++) {
      snapshot = await snapshotDatabase(dbFile, join(staging, DB_FILE));
      try {
        for (const fw of snapshot.firmwares) files.push(await copyFirmware(firmwareFiles, staging, fw));
        break;
      } catch (err) {
        if (!(err instanceof FirmwareGone) || attempt === ATTEMPTS) throw err;
        // Deleted between the snapshot and the copy: take a newer snapshot that no longer lists it.
        files.length = 0;
        await Deno.remove(join(staging, DB_FILE));
        await Deno.remove(join(staging, "firmwares"), { recursive: true }).catch(() => {});
      }
    }
    await Deno.chmod(join(staging, DB_FILE), 0o600);
    files.unshift({ path: DB_FILE, ...await hashFile(join(staging, DB_FILE)) });

    let secretNote = "";
    try {
      files.push({ path: SECRET_FILE, ...await copyHashed(join(dataDir, SECRET_FILE), join(staging, SECRET_FILE)) });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      secretNote =
        "no jwt_secret in DATA_DIR (JWT_SECRET comes from the environment): keep that value with this backup";
    }

    const { firmwares: _, ...meta } = snapshot;
    const manifest: Manifest = { ...meta, createdAt: new Date().toISOString(), sourceDataDir: dataDir, files };
    await Deno.writeTextFile(join(staging, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 });

    if (existing.length === 0) await Deno.remove(dest).catch(() => {}); // an empty target dir is replaced
    await Deno.rename(staging, dest);

    console.log(`Backup of ${dataDir} written to ${dest}:`);
    for (const f of files) console.log(`  ${f.path}  ${formatBytes(f.size)}  sha256 ${f.sha256}`);
    console.log(`  ${MANIFEST_FILE}  (the list above, read by deno task restore)`);
    const c = manifest.counts;
    console.log(
      `Contents: ${c.operators} operator(s), ${c.productTypes} product type(s), ${c.treatments} treatment(s), ` +
        `${c.devices} device(s), ${c.firmwares} firmware(s); schema version ${manifest.schemaVersion}.`,
    );
    if (secretNote) console.log(`Note: ${secretNote}.`);
  } catch (err) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    fail(`Backup failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

if (import.meta.main) await main();
