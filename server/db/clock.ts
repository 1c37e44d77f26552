/** Timestamps are ISO 8601 text in UTC with milliseconds, made by the server whatever the engine. */
import { AsyncLocalStorage } from "node:async_hooks";

const pinned = new AsyncLocalStorage<string>();

/** The time a write records: now, unless the caller runs inside `atInstant`. */
export const now = () => pinned.getStore() ?? new Date().toISOString();

/** The real time, whatever `atInstant` says: the audit trail records when a change was written. */
export const wallClock = () => new Date().toISOString();

/**
 * Runs `fn` with `now()` answering `iso` in it (and in what it awaits): the demo data (DEMO=1) writes its rollouts'
 * history through the stores' own functions, each step at its moment in the past. Nothing else uses it.
 */
export function atInstant<T>(iso: string, fn: () => T): T {
  return pinned.run(iso, fn);
}
