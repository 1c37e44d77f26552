/**
 * `deno task audit-verify [--checkpoint <file | s3>]...`: recomputes the audit trail's hash chain (docs/DECISIONS.md,
 * "Audit trail") on the database the server's configuration names (DATABASE_URL, else DATA_DIR's SQLite file). Exit 0
 * when every entry matches; 1 naming the first entry that does not (edited, removed or inserted behind the API's back);
 * 2 for a usage or configuration error.
 *
 * With --checkpoint (docs/REQUIREMENTS.md §17), the chain must also hold every checkpoint published earlier: a file (one JSON
 * checkpoint, `{"count": n, "hash": "…"}`, or a log whose `audit.checkpoint` lines are read, JSON or text), or
 * `s3`: every `audit/checkpoints/<count>.json` object of the bucket the environment names (S3_BUCKET, S3_ENDPOINT,
 * S3_PREFIX, AWS_*). A checkpoint the chain does not reach (a truncated tail) or whose entry has another hash (a
 * rewritten tail) fails with exit 1, naming it.
 */
import { existsSync } from "node:fs";
import { ConfigError, loadConfig } from "../server/config.ts";
import { pathsFor } from "../server/context.ts";
import { NewerSchemaError, openStores, storesConfig } from "../server/db/mod.ts";
import { checkpointObjects, checkpointOf, type PublishedCheckpoint } from "../server/files/checkpoint_objects.ts";

const USAGE = "Usage: deno task audit-verify [--checkpoint <file | s3>]...";

/** The checkpoints of one --checkpoint source; a string is a usage or reading error. */
async function readCheckpoints(
  source: string,
  config: ReturnType<typeof loadConfig>,
): Promise<PublishedCheckpoint[] | string> {
  if (source === "s3") {
    if (config.firmwareStore.kind !== "s3") return "--checkpoint s3 needs S3_BUCKET (and S3_ENDPOINT, AWS_*) set.";
    const objects = checkpointObjects(config.firmwareStore);
    const { checkpoints, bad } = await objects.list();
    if (bad.length) return `Not a checkpoint in the bucket: ${bad.join(", ")}.`;
    if (!checkpoints.length) return `No checkpoint in the bucket under ${objects.keyOf(0).replace(/0\.json$/, "")}.`;
    return checkpoints;
  }
  let text: string;
  try {
    text = await Deno.readTextFile(source);
  } catch (err) {
    return `Cannot read ${source}: ${err instanceof Error ? err.message : err}.`;
  }
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch { /* a log: one JSON object per line */ }
  if (whole !== undefined) {
    const one = checkpointOf(whole);
    return one ? [one] : `${source}: not a checkpoint ({"count": n, "hash": "<sha256 hex>"}).`;
  }
  const found: PublishedCheckpoint[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes("audit.checkpoint")) continue;
    // LOG_FORMAT=text: `<time> audit.checkpoint count=N hash=H at=T`.
    const plain = /^\S+ audit\.checkpoint count=(\d+) hash=([0-9a-f]*) at=(\S*)$/.exec(line.trim());
    let v: unknown = plain ? { msg: "audit.checkpoint", count: Number(plain[1]), hash: plain[2], at: plain[3] } : null;
    if (!plain) {
      try {
        v = JSON.parse(line);
      } catch {
        continue;
      }
    }
    const cp = (v as { msg?: unknown })?.msg === "audit.checkpoint" ? checkpointOf(v) : null;
    if (cp) found.push(cp);
  }
  return found.length ? found : `${source}: no audit.checkpoint line.`;
}

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
  const sources: string[] = [];
  for (let i = 0; i < Deno.args.length; i++) {
    const a = Deno.args[i];
    if (a === "--checkpoint" && Deno.args[i + 1]) sources.push(Deno.args[++i]);
    else if (a.startsWith("--checkpoint=")) sources.push(a.slice("--checkpoint=".length));
    else {
      console.error(USAGE);
      return 2;
    }
  }
  const checkpoints: PublishedCheckpoint[] = [];
  for (const source of sources) {
    const read = await readCheckpoints(source, config);
    if (typeof read === "string") {
      console.error(read);
      return 2;
    }
    checkpoints.push(...read);
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
    const { checked, firstBad } = await stores.audit.verify(checkpoints);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (firstBad) {
      console.error(
        `Audit trail BROKEN at entry ${firstBad.seq} (_id ${firstBad._id}): ${firstBad.reason}. ` +
          `${checked} entries before it match.`,
      );
      return 1;
    }
    const latest = checkpoints.reduce<PublishedCheckpoint | null>((a, c) => !a || c.count > a.count ? c : a, null);
    const held = latest
      ? `; ${checkpoints.length} checkpoint(s) held, the latest ${latest.count}${latest.at ? ` of ${latest.at}` : ""}`
      : "";
    console.log(`Audit trail intact: ${checked} entries, every hash matches${held} (${seconds} s).`);
    return 0;
  } finally {
    await stores.close();
  }
}

Deno.exit(await main());
