/**
 * A password check under the sign-in throttle (policy: server/db/rules/login_attempts.ts). The attempt is counted
 * before the password is checked, so attempts arriving together cannot all be checked; a right password then clears
 * the count. An attempt the server was too busy to check is given back, so it never counts against anyone.
 */
import type { AttemptKey, LoginAttemptStore } from "../db/stores.ts";
import { HashQueueFullError, verifyPassword } from "./password.ts";

export type CheckResult =
  | { kind: "right" }
  | { kind: "wrong" }
  /** Throttled: nothing was checked. */
  | { kind: "wait"; waitMs: number; reason: "address" | "account" }
  /** The queue of password hashes is full: nothing was checked, nothing counted. */
  | { kind: "busy" };

/** `hash` is the stored hash, or a dummy one (an unknown e-mail is checked alike, so timing does not reveal it). */
export async function checkPassword(
  attempts: LoginAttemptStore,
  key: AttemptKey,
  password: string,
  hash: () => Promise<string>,
): Promise<CheckResult> {
  const reservation = await attempts.reserve(key);
  if (!reservation.ok) return { kind: "wait", waitMs: reservation.waitMs, reason: reservation.reason };
  let right: boolean;
  try {
    right = await verifyPassword(password, await hash());
  } catch (err) {
    if (!(err instanceof HashQueueFullError)) throw err;
    await attempts.release(key, reservation);
    return { kind: "busy" };
  }
  if (right) await attempts.succeed(key);
  return { kind: right ? "right" : "wrong" };
}

/** "1 second", "40 seconds", "3 minutes": a wait rounded up, as a person reads it. */
export function waitText(waitMs: number): string {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  if (seconds < 60) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** The Retry-After value (whole seconds, at least 1). */
export const retryAfterSeconds = (waitMs: number) => Math.max(1, Math.ceil(waitMs / 1000));
