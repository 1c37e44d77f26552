/**
 * The operator's statement of every operator request (operators.currentWithDevicesVersion, its API-token form) answered
 * from memory on SQLite while nothing it reads has changed (changes.ts): per credential, the answer as the statement
 * gave it and the generation read before it; a hit needs that generation still current. Only answers that found the
 * operator or token are kept (an unknown credential is read each time, and cannot evict the known ones). The caller
 * checks the password version, disabling, role, scopes and expiry on every request as before.
 * docs/DECISIONS.md, "An operator's statement answered from memory on SQLite (issue 35, leanstmt)".
 */
import type { OpenStores } from "../stores.ts";
import type { Changes } from "./changes.ts";

/** Credentials kept; past it the oldest kept is dropped. */
export const REMEMBERED_CREDENTIALS = 1024;

interface Kept<T> {
  readonly generation: number;
  readonly answer: Promise<T>;
}

function remembered<T>(
  read: (key: string) => Promise<T>,
  found: (answer: T) => boolean,
  changes: Changes,
): (key: string) => Promise<T> {
  const kept = new Map<string, Kept<T>>();
  return (key) => {
    const generation = changes.generation();
    if (generation === null) return read(key);
    const hit = kept.get(key);
    if (hit !== undefined) {
      if (hit.generation === generation) return hit.answer;
      kept.delete(key);
    }
    return read(key).then((answer) => {
      if (!found(answer)) return answer;
      deepFreeze(answer);
      if (kept.size >= REMEMBERED_CREDENTIALS) kept.delete(kept.keys().next().value!);
      kept.set(key, { generation, answer: Promise.resolve(answer) });
      return answer;
    });
  };
}

/** A kept answer is handed to every request: none may change it. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/** `stores` with the two statements answered from memory while `changes` says nothing they read changed. */
export function rememberCredentials(stores: OpenStores, changes: Changes): OpenStores {
  const operators = stores.operators;
  const apiTokens = stores.apiTokens;
  return {
    ...stores,
    operators: {
      ...operators,
      currentWithDevicesVersion: remembered(
        (email) => operators.currentWithDevicesVersion(email),
        (a) => a.operator !== null,
        changes,
      ),
    },
    apiTokens: {
      ...apiTokens,
      currentWithDevicesVersion: remembered(
        (hash) => apiTokens.currentWithDevicesVersion(hash),
        (a) => a.found !== null,
        changes,
      ),
    },
    close: async () => {
      try {
        await stores.close();
      } finally {
        changes.close();
      }
    },
  };
}
