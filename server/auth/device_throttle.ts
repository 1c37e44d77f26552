/**
 * Failed device authentications, throttled so that devices behind one address (a clinic's NAT) never lock each other
 * out (docs/REQUIREMENTS.md §11, §19). One function for every device protocol (the device API, and hawkBit DDI next):
 *
 * - A per-device secret (a device token) is counted per device id AND address: `max` failures in a minute block that
 *   pair for a minute, doubling with each further block up to an hour; while blocked its calls are refused unchecked
 *   (429), so a flood of bad tokens costs no lookup. Another device id at the same address is never touched.
 * - A secret shared by many devices (DEVICE_API_KEY in `shared` mode, the enrolment key) cannot be counted per device
 *   (any id can be claimed), so it is counted per address, and the secret is checked first: the right one always goes
 *   through; only wrong ones are answered 429 once the address is over the limit. Guessing is kept off by the key's
 *   length (at least 16 characters, config.ts), not by the throttle; the throttle tells broken clients to back off.
 *
 * A success clears nothing: a valid device behind the same address must not reset a broken one's count. In memory per
 * process and bounded (docs/DECISIONS.md, "Field conditions: throttles").
 */
import type { Context } from "hono";
import { ApiHttpError, unauthorized } from "../errors.ts";
import { retryAfterSeconds, waitText } from "./throttle.ts";

interface Entry {
  windowStart: number;
  failures: number;
  blockedUntil: number;
  /** How many times in a row this key was blocked: each block lasts twice as long as the one before. */
  strikes: number;
  last: number;
}

const WINDOW_MS = 60_000;
const MAX_BLOCK_MS = 3_600_000;
/** A key quiet for this long starts afresh. */
const FORGET_MS = 3_600_000;
const MAX_ENTRIES = 100_000;

/** Who presents the credential: a per-device secret names its device; a shared secret names none. */
export interface DeviceCredentialSubject {
  address: string;
  /** Set for a per-device secret (its device id); absent for a secret many devices share. */
  deviceId?: string;
}

export type DeviceAuthOutcome =
  | { kind: "ok" }
  /** Wrong; counted (answer 401). */
  | { kind: "wrong" }
  /** Refused: too many failures of this key (answer 429 with Retry-After). */
  | { kind: "wait"; waitMs: number };

export class DeviceAuthThrottle {
  #entries = new Map<string, Entry>();
  constructor(readonly max: number, readonly clock: () => number = Date.now) {}

  /**
   * One device authentication under the throttle. `check` answers whether the credential is right; it is not called
   * for a per-device secret whose pair is blocked.
   */
  async authenticate(
    subject: DeviceCredentialSubject,
    check: () => boolean | Promise<boolean>,
  ): Promise<DeviceAuthOutcome> {
    if (subject.deviceId !== undefined) {
      const key = `device\0${subject.deviceId}\0${subject.address}`;
      const wait = this.#waitMs(key);
      if (wait > 0) return { kind: "wait", waitMs: wait };
      if (await check()) return { kind: "ok" };
      this.#fail(key);
      return { kind: "wrong" };
    }
    if (await check()) return { kind: "ok" };
    const key = `address\0${subject.address}`;
    const wait = this.#waitMs(key);
    if (wait > 0) return { kind: "wait", waitMs: wait };
    this.#fail(key);
    return { kind: "wrong" };
  }

  /**
   * How long a per-device secret's pair is still blocked (0: not blocked), counting nothing: a lean route
   * (server/mount.ts) admits only a credential `authenticate` would admit, and leaves every other to it.
   */
  blockedMs(subject: DeviceCredentialSubject): number {
    return subject.deviceId === undefined ? 0 : this.#waitMs(`device\0${subject.deviceId}\0${subject.address}`);
  }

  /** How many keys are held (tests, and the bound). */
  get size(): number {
    return this.#entries.size;
  }

  #waitMs(key: string): number {
    const e = this.#entries.get(key);
    return e ? Math.max(0, e.blockedUntil - this.clock()) : 0;
  }

  #fail(key: string): void {
    const at = this.clock();
    let e = this.#entries.get(key);
    if (e && at - e.last > FORGET_MS) {
      this.#entries.delete(key);
      e = undefined;
    }
    if (!e) {
      if (this.#entries.size >= MAX_ENTRIES) this.#prune(at);
      e = { windowStart: at, failures: 0, blockedUntil: 0, strikes: 0, last: at };
      this.#entries.set(key, e);
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

/**
 * The HTTP side of `authenticate`: passes on "ok", otherwise throws 401 (`wrongMsg`) or 429 with Retry-After. The
 * message of a 429 says what is refused, so a technician reading a device's log knows it is this device (or, for a
 * shared key, this address) and not the server.
 */
export async function requireDeviceCredential(
  c: Context,
  throttle: DeviceAuthThrottle,
  subject: DeviceCredentialSubject,
  check: () => boolean | Promise<boolean>,
  wrongMsg: string,
): Promise<void> {
  const outcome = await throttle.authenticate(subject, check);
  if (outcome.kind === "ok") return;
  if (outcome.kind === "wrong") throw unauthorized(wrongMsg);
  c.header("Retry-After", String(retryAfterSeconds(outcome.waitMs)));
  const what = subject.deviceId !== undefined
    ? `Too many failed authentications of device ${subject.deviceId} from this address`
    : "Too many wrong device keys from this address";
  throw new ApiHttpError(429, "too_many_requests", `${what}; try again in ${waitText(outcome.waitMs)}.`);
}
