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
