/**
 * Is the disk of DATA_DIR full? For /healthz ("storage": "ok" | "full", docs/REQUIREMENTS.md §15) and for the start-up's one-line
 * refusal. Read from the file system itself (statfs), so it turns back to "ok" as soon as space is freed.
 */
import { statfs } from "node:fs/promises";
import { StorageFullError } from "./db/errors.ts";
import { NoSpaceError } from "./files/file_write.ts";

/** Below this much space for the server's user, the disk counts as full (a page of the database, a batch of a file). */
export const MIN_FREE_BYTES = 1 << 20;

export type StorageState = "ok" | "full";

export async function storageState(dir: string): Promise<StorageState> {
  try {
    const s = await statfs(dir);
    return s.bavail * s.bsize < MIN_FREE_BYTES ? "full" : "ok";
  } catch {
    return "ok"; // a file system that cannot tell: the writes themselves still answer 507
  }
}

/** True for any error that means "no space left": the OS's ENOSPC/EDQUOT, or the stores' and file writer's kinds. */
export function isNoSpace(err: unknown): boolean {
  if (err instanceof StorageFullError || err instanceof NoSpaceError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT" ||
    (err instanceof Error && /No space left on device/i.test(err.message));
}
