/**
 * `deno task start` builds the web bundle when it is missing or older than its sources.
 * Several servers may start at once (tests): a lock file lets one build while the others wait.
 */
const ROOT = new URL("../", import.meta.url).pathname;
const DIST_INDEX = `${ROOT}web/dist/index.html`;
const LOCK = `${ROOT}web/dist/.build.lock`;
const SOURCES = ["web/src", "web/index.html", "shared", "scripts/build-web.ts", "deno.json"];
const STALE_LOCK_MS = 120_000;

async function newestMtime(path: string): Promise<number> {
  const info = await Deno.stat(path).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory) return info.mtime?.getTime() ?? 0;
  let newest = info.mtime?.getTime() ?? 0;
  for await (const e of Deno.readDir(path)) {
    newest = Math.max(newest, await newestMtime(`${path}/${e.name}`));
  }
  return newest;
}

/** True when web/dist/index.html is missing or older than any source file. */
export async function webBundleIsStale(): Promise<boolean> {
  const built = (await Deno.stat(DIST_INDEX).catch(() => null))?.mtime?.getTime() ?? 0;
  if (!built) return true;
  let newest = 0;
  for (const s of SOURCES) newest = Math.max(newest, await newestMtime(`${ROOT}${s}`));
  return newest > built;
}

async function tryLock(): Promise<boolean> {
  await Deno.mkdir(`${ROOT}web/dist`, { recursive: true });
  try {
    const f = await Deno.open(LOCK, { createNew: true, write: true });
    f.close();
    return true;
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    const info = await Deno.stat(LOCK).catch(() => null);
    if (info?.mtime && Date.now() - info.mtime.getTime() > STALE_LOCK_MS) {
      await Deno.remove(LOCK).catch(() => {});
    }
    return false;
  }
}

/** The build under way (this process holds the lock), if any. */
let building: AbortController | null = null;

/**
 * The server stops while it builds (a signal during start-up): the build is ended and the lock removed now, since the
 * exit skips ensureWebBundle's cleanup; else the next start would wait for a lock nobody holds.
 */
export function stopWebBuild(): void {
  if (!building) return;
  building.abort();
  building = null;
  try {
    Deno.removeSync(LOCK);
  } catch {
    // already gone
  }
}

export async function ensureWebBundle(log: (line: string) => void): Promise<void> {
  if (!await webBundleIsStale()) return;
  const deadline = Date.now() + STALE_LOCK_MS + 10_000;
  while (!await tryLock()) {
    if (Date.now() > deadline) throw new Error("Timed out waiting for another web build (web/dist/.build.lock).");
    await new Promise((r) => setTimeout(r, 250));
  }
  try {
    // Another process may have built it while we waited.
    if (!await webBundleIsStale()) return;
    log("Building the web console bundle (web/dist)…");
    const build = building = new AbortController();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}scripts/build-web.ts`],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
      signal: build.signal,
    }).output().catch((err) => {
      if (!build.signal.aborted) throw err;
      return null;
    }).finally(() => building = null);
    // Stopped by stopWebBuild: the server is exiting; nothing more here (the lock is no longer this build's).
    if (!out || build.signal.aborted) return await new Promise<never>(() => {});
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    if (!out.success) throw new Error(`The web build failed:\n${text}`);
    log(text.trim());
  } finally {
    await Deno.remove(LOCK).catch(() => {});
  }
}
