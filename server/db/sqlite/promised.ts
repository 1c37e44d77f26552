/** The synchronous form of a store interface: what the SQLite engine implements. */
export type Sync<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

/**
 * A store from its synchronous implementation: each call runs to completion when it is made (so a transaction never
 * spans an await) and answers as a promise; a throw becomes a rejection.
 */
export function promised<S>(impl: Sync<S>): S {
  const store: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(impl as Record<string, (...args: unknown[]) => unknown>)) {
    store[name] = (...args: unknown[]) => {
      try {
        return Promise.resolve(fn(...args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
  }
  return store as S;
}
