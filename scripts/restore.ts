/**
 * `deno task restore <backupdir>`: puts a backup made by `deno task backup` into DATA_DIR.
 *
 * DATA_DIR must be new or empty (an empty `tmp/` is tolerated) and no server may be running on it.
 * Every file is checked against the manifest first; then files are copied into DATA_DIR/tmp/restore
 * and moved into place with the database last. An interrupted restore leaves only DATA_DIR/tmp,
 * which the server empties at start, or which this script accepts on a second run.
 */
import { join, resolve } from "node:path";
import {
  copyHashed,
  dataDirFromEnv,
  DB_FILE,
  entriesOf,
  fail,
  FIRMWARES_DIR,
  formatBytes,
  hashFile,
  type Manifest,
  MANIFEST_FILE,
  SECRET_FILE,
} from "./backup_files.ts";

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
    if (!(f.path === DB_FILE || f.path === SECRET_FILE || /^firmwares\/[A-Za-z0-9_-]+\.xz$/.test(f.path))) {
      fail(`Restore failed: unexpected path ${JSON.stringify(f.path)} in ${MANIFEST_FILE}.`);
    }
  }
  return manifest;
}

async function main() {
  if (Deno.env.get("DATABASE_URL")) {
    // CONTRACT §10: with PostgreSQL the database is restored with its own tools (docs/SCALING.md, "Backup").
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

  const staging = join(dataDir, "tmp", "restore");
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  await Deno.mkdir(join(staging, FIRMWARES_DIR), { recursive: true });
  await Deno.chmod(dataDir, 0o700);
  for (const f of manifest.files) {
    const mode = f.path.startsWith("firmwares/") ? 0o640 : 0o600;
    const copied = await copyHashed(join(backupDir, f.path), join(staging, f.path), mode);
    if (copied.sha256 !== f.sha256) fail(`Restore failed: ${f.path} changed while it was copied.`);
  }
  await Deno.rename(join(staging, FIRMWARES_DIR), join(dataDir, FIRMWARES_DIR));
  if (manifest.files.some((f) => f.path === SECRET_FILE)) {
    await Deno.rename(join(staging, SECRET_FILE), join(dataDir, SECRET_FILE));
  }
  await Deno.rename(join(staging, DB_FILE), join(dataDir, DB_FILE)); // last: the data dir is now complete
  await Deno.remove(staging, { recursive: true });

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
