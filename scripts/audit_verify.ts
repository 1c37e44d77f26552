/**
 * `deno task audit-verify`: recomputes the audit trail's hash chain (docs/DECISIONS.md, "Audit trail") on the database
 * the server's configuration names (DATABASE_URL, else DATA_DIR's SQLite file). Exit 0 when every entry matches; 1
 * naming the first entry that does not (edited, removed or inserted behind the API's back); 2 for a usage or
 * configuration error.
 */
import { existsSync } from "node:fs";
import { ConfigError, loadConfig } from "../server/config.ts";
import { pathsFor } from "../server/context.ts";
import { NewerSchemaError, openStores, storesConfig } from "../server/db/mod.ts";

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  const paths = pathsFor(config.DATA_DIR);
  const target = storesConfig(paths, config);
  if (target.engine === "sqlite" && !existsSync(target.file)) {
    console.error(`No database in ${config.DATA_DIR} (${target.file}): set DATA_DIR or DATABASE_URL.`);
    return 2;
  }
  let stores;
  try {
    stores = await openStores(target);
  } catch (err) {
    if (err instanceof NewerSchemaError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  try {
    const started = performance.now();
    const { checked, firstBad } = await stores.audit.verify();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (firstBad) {
      console.error(
        `Audit trail BROKEN at entry ${firstBad.seq} (_id ${firstBad._id}): ${firstBad.reason}. ` +
          `${checked} entries before it match.`,
      );
      return 1;
    }
    console.log(`Audit trail intact: ${checked} entries, every hash matches (${seconds} s).`);
    return 0;
  } finally {
    await stores.close();
  }
}

Deno.exit(await main());
