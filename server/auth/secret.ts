import { join } from "node:path";
import type { SystemStore } from "../db/stores.ts";

function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  return btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, (c) => ({ "+": "-", "/": "_", "=": "" })[c]!);
}

/**
 * JWT_SECRET; else, on an engine that keeps it (PostgreSQL), the one secret in the database, made by the first replica;
 * else a secret generated once into DATA_DIR/jwt_secret with mode 0600.
 */
export async function loadSecret(
  dataDir: string,
  fromEnv?: string,
  system?: Pick<SystemStore, "sharedSecret">,
): Promise<string> {
  if (fromEnv) return fromEnv;
  const shared = await system?.sharedSecret(newSecret());
  if (shared) return shared;
  const file = join(dataDir, "jwt_secret");
  try {
    const existing = (await Deno.readTextFile(file)).trim();
    if (existing.length >= 32) {
      await Deno.chmod(file, 0o600); // a secret left readable by others (an older release, a restore) is tightened
      return existing;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const secret = newSecret();
  await Deno.writeTextFile(file, secret, { mode: 0o600 });
  await Deno.chmod(file, 0o600);
  return secret;
}
