/** Runs `fn` with the clock moved by `shift` ms (check-ins stamp their time with `new Date()`). */
export async function withClock<T>(shift: number, fn: () => Promise<T>): Promise<T> {
  const Real = Date;
  class Shifted extends Real {
    constructor(...args: unknown[]) {
      super(...((args.length === 0 ? [Real.now() + shift] : args) as [string]));
    }
    static override now() {
      return Real.now() + shift;
    }
  }
  globalThis.Date = Shifted as DateConstructor;
  try {
    return await fn();
  } finally {
    globalThis.Date = Real;
  }
}

/**
 * Lets the clock move, so a timestamp written next (by this process or a server on this machine) differs from the
 * last one: on a fast machine two writes fall in the same millisecond, and ISO times with ms then compare equal.
 */
export const tick = () => new Promise((r) => setTimeout(r, 3));
