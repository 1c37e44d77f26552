/** What runs on this machine, read from /proc (Linux): the processes of a group, the children of a process. */

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  state: string;
  /** The command line, arguments joined by spaces. */
  command: string;
}

export function procInfo(pid: number): ProcInfo | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const command = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").filter(Boolean).join(" ");
    return { pid, state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), session: Number(f[3]), command };
  } catch {
    return null; // gone meanwhile
  }
}

function allProcesses(): ProcInfo[] {
  const found: ProcInfo[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const info = procInfo(Number(e.name));
    if (info) found.push(info);
  }
  return found;
}

/** The live processes of a process group (zombies left out: they run nothing). */
export const groupMembers = (pgrp: number) => allProcesses().filter((p) => p.pgrp === pgrp && p.state !== "Z");

/** The live children of a process; with `name`, those whose program is named so (`xz` for /usr/bin/xz). */
export const childrenOf = (ppid: number, name?: string) =>
  allProcesses().filter((p) =>
    p.ppid === ppid && p.state !== "Z" && (!name || p.command.split(" ")[0].split("/").pop() === name)
  );

/** Polls until `test` gives a value that is not empty, or fails after ms saying `what`. */
export async function waitFor<T>(test: () => T | null | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = test();
    if (value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once the group has no live process; else fails after ms, naming those left. */
export async function groupGone(pgrp: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = groupMembers(pgrp);
    if (!left.length) return;
    if (Date.now() > deadline) {
      throw new Error(`still running after ${ms} ms:\n${left.map((p) => `${p.pid} ${p.command}`).join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
