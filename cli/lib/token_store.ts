/** The token saved by `login`: one JSON file, mode 0600, in the user's config directory. */
import * as z from "zod";

const SavedLogin = z.object({ url: z.string(), email: z.string(), token: z.string(), savedAt: z.string() });
export type SavedLogin = z.infer<typeof SavedLogin>;

export function configDir(): string {
  const xdg = Deno.env.get("XDG_CONFIG_HOME");
  if (xdg) return `${xdg}/therapy-console`;
  const home = Deno.env.get("HOME");
  if (!home) throw new Error("Neither XDG_CONFIG_HOME nor HOME is set: no place to keep the login.");
  return `${home}/.config/therapy-console`;
}

export function tokenPath(): string {
  return `${configDir()}/token.json`;
}

/** The saved login, or null when there is none (an unreadable file counts as none). */
export async function loadLogin(): Promise<SavedLogin | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(tokenPath());
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  try {
    const parsed = SavedLogin.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Writes the login atomically: a 0600 temp file in the same directory, then a rename. */
export async function saveLogin(login: SavedLogin): Promise<string> {
  const dir = configDir();
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const path = tokenPath();
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(tmp, JSON.stringify(login, null, 2) + "\n", { mode: 0o600, createNew: true });
    await Deno.chmod(tmp, 0o600); // the umask may have narrowed it further, never widened; make it exact
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
  return path;
}
