/**
 * The README's commands run behind two wrappers: `npx -y deno@… task start` is npm exec → `sh -c` → `deno task` → the
 * server (or the CLI). `deno task` forwards SIGINT and SIGTERM to its child, but npm forwards a SIGTERM only to the
 * `sh`, which dies without passing it on: `deno task` and the server would be left running, orphaned, with nobody to
 * stop them (and a cancelled CI job's CLI would still upload). So a process started that way watches its launchers
 * and stops when one of them is gone. Linux only (it reads /proc); elsewhere, and when started any other way
 * (`deno run`, systemd, Docker, `nohup`), nothing is watched.
 *
 *   watchLaunchers((launcher) => stop(`the ${launcher} that started the server is gone`));
 */

/** How often the launchers are looked at: two small /proc reads each time. */
export const LAUNCHER_POLL_MS = 500;

interface Proc {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: tells a reused pid from the process watched. */
  start: string;
  argv: string[];
}

function readProc(pid: number): Proc | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").filter((a) => a !== "");
    return { pid, ppid: Number(fields[1]), start: fields[19], argv };
  } catch {
    return null;
  }
}

const base = (path = "") => path.slice(path.lastIndexOf("/") + 1);
const isDenoTask = (p: Proc) => /^deno(\.exe)?$/.test(base(p.argv[0])) && p.argv[1] === "task";
const isShell = (p: Proc) => /^(sh|dash|bash)$/.test(base(p.argv[0])) && p.argv[1] === "-c";
/**
 * npm (npx is `npm exec`) sets its process title to "npm exec …"; before that it is node running npx-cli.js. npm never
 * means to leave its command running once it has gone, whatever its subcommand.
 */
const isNpm = (p: Proc) =>
  /^npm( |$)/.test(p.argv[0] ?? "") || (base(p.argv[0]) === "node" && /(^|\/)np[mx](-cli\.js)?$/.test(p.argv[1] ?? ""));

export interface Launcher {
  pid: number;
  start: string;
  name: "deno task" | "npx";
}

/**
 * The wrappers this process runs behind, nearest first: its parent if that is `deno task`, then an npm (npx) above it,
 * directly or through the `sh -c` npm runs commands with. Any other parent ends the search: a shell, systemd, Docker.
 */
export function launchers(pid = Deno.pid): Launcher[] {
  const self = readProc(pid);
  let p = self ? readProc(self.ppid) : null;
  const found: Launcher[] = [];
  if (p && isDenoTask(p)) {
    found.push({ pid: p.pid, start: p.start, name: "deno task" });
    p = readProc(p.ppid);
  }
  if (p && isShell(p)) p = readProc(p.ppid);
  if (p && isNpm(p)) found.push({ pid: p.pid, start: p.start, name: "npx" });
  return found;
}

/**
 * Calls `gone` once, with the launcher's name, when a launcher found at the call is no longer running. Returns a
 * function that stops watching. The timer does not keep the process alive.
 */
export function watchLaunchers(gone: (launcher: string) => void, every = LAUNCHER_POLL_MS): () => void {
  const watched = Deno.build.os === "linux" ? launchers() : [];
  if (!watched.length) return () => {};
  const timer = setInterval(() => {
    const lost = watched.find((l) => readProc(l.pid)?.start !== l.start);
    if (!lost) return;
    clearInterval(timer);
    gone(lost.name);
  }, every);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
