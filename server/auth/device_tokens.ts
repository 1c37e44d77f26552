/**
 * Per-device credentials (CONTRACT §11, DEVICE_AUTH=token): a token is 256 random bits, shown to the device once and
 * stored only as its sha256. No KDF: a key stretcher protects guessable secrets (passwords); a 256-bit random secret
 * cannot be guessed, so one fast hash is enough and every device call costs one lookup by primary key plus one
 * constant-time comparison (docs/DECISIONS.md, "Device identity and admission").
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The prefix of a device token: recognisable in a leaked log or a secret scanner. */
export const DEVICE_TOKEN_PREFIX = "tdd_";

/** A fresh device token: the prefix and 32 random bytes, base64url. */
export function newDeviceToken(): string {
  return DEVICE_TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** How a token is stored: its sha256, hex. */
export const deviceTokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** True when `token` hashes to `storedHash`, compared in constant time; false when the device holds none. */
export function deviceTokenMatches(token: string, storedHash: string | null): boolean {
  if (storedHash === null || storedHash.length !== 64) return false;
  return timingSafeEqual(Buffer.from(deviceTokenHash(token), "hex"), Buffer.from(storedHash, "hex"));
}

interface Entry {
  windowStart: number;
  failures: number;
  blockedUntil: number;
  /** How many times in a row this address was blocked: each block lasts twice as long as the one before. */
  strikes: number;
  last: number;
}

const WINDOW_MS = 60_000;
const MAX_BLOCK_MS = 3_600_000;
/** An address quiet for this long starts afresh. */
const FORGET_MS = 3_600_000;
const MAX_ENTRIES = 100_000;

/**
 * Failed device authentications per client address (CONTRACT §11): `max` failures in a minute block the address's
 * device calls for a minute, doubling with each further block up to an hour; while blocked, nothing is checked (429),
 * so tokens cannot be guessed at speed. A success clears nothing (a device with a valid token must not be able to
 * reset an attacker's count behind the same address). Kept in memory per process: the per-device token is 256 bits,
 * so the throttle is a second line, and N replicas allow N times the rate (docs/DECISIONS.md).
 */
export class DeviceAuthThrottle {
  #entries = new Map<string, Entry>();
  constructor(readonly max: number, readonly clock: () => number = Date.now) {}

  /** How long the address must wait before its next device call is checked (0: go ahead). */
  waitMs(address: string): number {
    const e = this.#entries.get(address);
    if (!e) return 0;
    return Math.max(0, e.blockedUntil - this.clock());
  }

  /** Counts a failed authentication from the address. */
  fail(address: string): void {
    const at = this.clock();
    let e = this.#entries.get(address);
    if (e && at - e.last > FORGET_MS) {
      this.#entries.delete(address);
      e = undefined;
    }
    if (!e) {
      if (this.#entries.size >= MAX_ENTRIES) this.#prune(at);
      e = { windowStart: at, failures: 0, blockedUntil: 0, strikes: 0, last: at };
      this.#entries.set(address, e);
    }
    if (at - e.windowStart >= WINDOW_MS) {
      e.windowStart = at;
      e.failures = 0;
    }
    e.failures++;
    e.last = at;
    if (e.failures >= this.max) {
      e.blockedUntil = at + Math.min(MAX_BLOCK_MS, WINDOW_MS * 2 ** e.strikes);
      e.strikes++;
      e.failures = 0;
      e.windowStart = at;
    }
  }

  #prune(at: number) {
    for (const [key, e] of this.#entries) {
      if (at - e.last > FORGET_MS && e.blockedUntil <= at) this.#entries.delete(key);
    }
    // Still full: drop the oldest (insertion order), never growing without bound.
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < MAX_ENTRIES) break;
      this.#entries.delete(key);
    }
  }
}
