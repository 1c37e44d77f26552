import type { Context } from "hono";
import { ApiHttpError } from "../errors.ts";
import { hashPassword, HashQueueFullError } from "./password.ts";
import { retryAfterSeconds, waitText } from "./throttle.ts";

/** A 429 with Retry-After; the msg says how long to wait. */
export function tooMany(c: Context, waitMs: number, msg: (wait: string) => string): ApiHttpError {
  c.header("Retry-After", String(retryAfterSeconds(waitMs)));
  return new ApiHttpError(429, "too_many_requests", msg(waitText(waitMs)));
}

/** 429 while the bounded queue of password hashes is full. */
export const busy = (c: Context) =>
  tooMany(c, 1000, (wait) => `The server is busy checking other passwords; try again in ${wait}.`);

/** A password's hash; 429 while the bounded queue of password hashes is full. */
export async function hashOrBusy(c: Context, password: string): Promise<string> {
  try {
    return await hashPassword(password);
  } catch (err) {
    if (err instanceof HashQueueFullError) throw busy(c);
    throw err;
  }
}
