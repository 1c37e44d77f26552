import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Paths } from "./context.ts";
import type { OperatorStore, Stores } from "./db/stores.ts";
import { StoreUnavailableError } from "./db/errors.ts";
import { FilesUnavailableError, type FirmwareFiles } from "./files/firmware_files.ts";
import { hashPassword, randomPassword } from "./auth/password.ts";

/** Directories of DATA_DIR: only the server's user may list or enter them. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Creates a directory (and its parents) if needed and makes it 0700 whatever the umask, tightening one that is looser.
 * Answers a warning when an existing directory cannot be tightened (not ours: the files in it stay 0600).
 */
export async function makePrivateDir(dir: string): Promise<string | null> {
  await Deno.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (Deno.build.os === "windows") return null;
  const mode = (await Deno.stat(dir)).mode! & 0o777;
  if (mode === PRIVATE_DIR_MODE) return null;
  try {
    await Deno.chmod(dir, PRIVATE_DIR_MODE);
    return null;
  } catch (err) {
    if (!(err instanceof Deno.errors.PermissionDenied)) throw err;
    return `WARNING: ${dir} has mode ${mode.toString(8).padStart(4, "0")} and cannot be made 0700 (${err.message}).`;
  }
}

/** DATA_DIR and its subdirectories, created or tightened to 0700; answers the warnings to log. */
export async function ensureDirectories(paths: Paths): Promise<string[]> {
  const warnings: string[] = [];
  for (const dir of [paths.data, paths.firmwares, paths.tmp]) {
    const warning = await makePrivateDir(dir);
    if (warning) warnings.push(warning);
  }
  return warnings;
}

/**
 * Throws unless the server's user can create a file in `dir`: a read-only mount, or a directory it may not write, is
 * found here, before the database is opened, and named in one line rather than by a SQLite error from deep inside.
 */
export async function assertWritable(dir: string): Promise<void> {
  const probe = join(dir, `.write-probe-${Deno.pid}`);
  await Deno.writeFile(probe, new Uint8Array(), { createNew: true, mode: 0o600 });
  await Deno.remove(probe);
}

/**
 * Removes what an interrupted upload or import left behind: nothing half-written stays.
 * Synchronous on purpose: at shutdown no request handler can run between listing and removing,
 * so a temp file is never renamed into place while it is being swept.
 */
export function clearTmpSync(paths: Paths): number {
  let removed = 0;
  for (const entry of Deno.readDirSync(paths.tmp)) {
    Deno.removeSync(join(paths.tmp, entry.name), { recursive: true });
    removed++;
  }
  return removed;
}

/**
 * Start-up cleanup, logged: temp leftovers, orphaned firmware files, rows whose file is gone, and treatment content an
 * interrupted import wrote ahead but never published.
 */
export async function cleanUpAfterCrash(
  stores: Pick<Stores, "firmwares" | "treatments">,
  files: FirmwareFiles,
  paths: Paths,
  log: (line: string) => void,
): Promise<void> {
  const leftovers = clearTmpSync(paths);
  if (leftovers) log(`Removed ${leftovers} temp file(s) left by an interrupted upload or import.`);
  // Files no row names: left when the process died between putting a file in place and committing its row, or
  // between deleting a row and its file.
  await sweepFirmwareFiles(stores, files, log, 0);
  const content = await stores.treatments.sweep();
  if (content) log(`Removed ${content} row(s) of treatment content left by an interrupted import.`);
}

/** Firmware files no row names, older than graceMs, are removed (logged); a store that cannot be reached is logged. */
export async function sweepFirmwareFiles(
  stores: Pick<Stores, "firmwares">,
  files: FirmwareFiles,
  log: (line: string) => void,
  graceMs: number,
): Promise<void> {
  try {
    const { removed, missing } = await files.sweep(await stores.firmwares.ids(), { graceMs });
    if (removed.length) {
      log(`Removed ${removed.length} firmware file(s) with no firmware record: ${removed.join(", ")}.`);
    }
    if (missing.length) log(`WARNING: the file of firmware(s) ${missing.join(", ")} is missing.`);
  } catch (err) {
    if (!(err instanceof FilesUnavailableError)) throw err;
    log(`WARNING: firmware files were not swept: ${err.message}`);
  }
}

/**
 * Kept counts no view reads any more are deleted (PostgreSQL: empty hours of check-ins older than 8 days; nothing on
 * SQLite), at start and every hour: without it a year leaves 8,760 rows. `report`: log how many went (at start, where
 * a backlog goes at once; the hourly run removes about one row). A store that cannot be reached is logged.
 */
export async function pruneKeptCounts(
  stores: Pick<Stores, "devices">,
  log: (line: string) => void,
  report: boolean,
): Promise<void> {
  try {
    const pruned = await stores.devices.pruneCounts();
    if (report && pruned) log(`Pruned ${pruned} empty hourly check-in count(s) older than 8 days.`);
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err;
    log(`WARNING: kept counts were not pruned: ${err.message}`);
  }
}

/** On a start with no operator: ADMIN_EMAIL/ADMIN_PASSWORD, else admin@example.com with a printed random password. */
export async function bootstrapOperator(
  operators: OperatorStore,
  config: Config,
  log: (line: string) => void,
): Promise<void> {
  if (await operators.count() > 0) return;
  // addFirst() adds only while there is still no operator: another process starting at once may have won.
  if (config.ADMIN_EMAIL && config.ADMIN_PASSWORD) {
    if (await operators.addFirst(config.ADMIN_EMAIL, await hashPassword(config.ADMIN_PASSWORD))) {
      log(`Created operator ${config.ADMIN_EMAIL} from ADMIN_EMAIL.`);
    }
    return;
  }
  const password = randomPassword();
  if (await operators.addFirst("admin@example.com", await hashPassword(password))) {
    // Printed once, on purpose: it is the only way to learn the generated password.
    console.log(`Created operator admin@example.com with password: ${password}`);
  }
}
