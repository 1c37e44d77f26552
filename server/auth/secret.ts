import { join } from "node:path";

/** JWT_SECRET, else a secret generated once into DATA_DIR/jwt_secret with mode 0600. */
export async function loadSecret(dataDir: string, fromEnv?: string): Promise<string> {
  if (fromEnv) return fromEnv;
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
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  const secret = btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, (c) => ({ "+": "-", "/": "_", "=": "" })[c]!);
  await Deno.writeTextFile(file, secret, { mode: 0o600 });
  await Deno.chmod(file, 0o600);
  return secret;
}
