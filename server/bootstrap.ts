import type { Config } from "./config.ts";
import type { Paths } from "./context.ts";
import type { Db } from "./db/mod.ts";
import { countOperators, insertOperator } from "./db/operators.ts";
import { hashPassword, randomPassword } from "./auth/password.ts";

export async function ensureDirectories(paths: Paths): Promise<void> {
  for (const dir of [paths.data, paths.firmwares, paths.tmp]) await Deno.mkdir(dir, { recursive: true });
}

/** Removes what an interrupted upload or import left behind: nothing half-written stays. */
export async function clearTmp(paths: Paths): Promise<number> {
  let removed = 0;
  for await (const entry of Deno.readDir(paths.tmp)) {
    await Deno.remove(`${paths.tmp}/${entry.name}`, { recursive: true });
    removed++;
  }
  return removed;
}

/** On a start with no operator: ADMIN_EMAIL/ADMIN_PASSWORD, else admin@example.com with a printed random password. */
export async function bootstrapOperator(db: Db, config: Config, log: (line: string) => void): Promise<void> {
  if (countOperators(db) > 0) return;
  if (config.ADMIN_EMAIL && config.ADMIN_PASSWORD) {
    insertOperator(db, config.ADMIN_EMAIL, await hashPassword(config.ADMIN_PASSWORD));
    log(`Created operator ${config.ADMIN_EMAIL} from ADMIN_EMAIL.`);
    return;
  }
  const password = randomPassword();
  insertOperator(db, "admin@example.com", await hashPassword(password));
  // Printed once, on purpose: it is the only way to learn the generated password.
  console.log(`Created operator admin@example.com with password: ${password}`);
}
