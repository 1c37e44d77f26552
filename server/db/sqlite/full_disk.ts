/**
 * SQLite's "database or disk is full" (SQLITE_FULL, also for a full disk under the WAL) as the domain's
 * StorageFullError, for every store method: the HTTP layer answers it 507 (CONTRACT §15).
 */
import { StorageFullError } from "../errors.ts";

const SQLITE_FULL = 13;

export const FULL_MESSAGE = "The server's disk is full: the change was not saved. Free space on the server and retry.";

/** True for SQLite's full-database error, whatever its extended code (node:sqlite's exec() gives only the text). */
export function isSqliteFull(err: unknown): boolean {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  if (typeof code === "number") return (code & 0xff) === SQLITE_FULL;
  return err instanceof Error && (err as { code?: unknown }).code === "ERR_SQLITE_ERROR" &&
    /database or disk is full/i.test(err.message);
}

const mapped = (err: unknown) => isSqliteFull(err) ? new StorageFullError(FULL_MESSAGE) : err;

/** The store with each method's SQLITE_FULL (thrown, or a rejection) turned into StorageFullError. */
export function fullDiskAware<S extends object>(store: S): S {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    if (typeof value !== "function") {
      out[name] = value;
      continue;
    }
    out[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = value.apply(store, args);
      } catch (err) {
        throw mapped(err);
      }
      return result instanceof Promise ? result.catch((err) => Promise.reject(mapped(err))) : result;
    };
  }
  return out as S;
}
