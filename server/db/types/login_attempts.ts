/**
 * What is throttled: sign-ins, the current password a password change must give, and API tokens that are not (any
 * more) valid (counted per address, the address standing in for the e-mail, docs/REQUIREMENTS.md §12). `known_browser`: sign-ins
 * from a browser holding the operator's known-browser mark (docs/REQUIREMENTS.md §19), counted per e-mail and browser (the mark's
 * id in `address`), never held up by the e-mail-wide ceiling.
 */
export type AttemptScope = "login" | "change_password" | "api_token" | "known_browser" | "approve";

/** Attempts are counted per scope, e-mail (ignoring case and surrounding spaces) and client address. */
export interface AttemptKey {
  scope: AttemptScope;
  email: string;
  address: string;
}

export type Reservation =
  /** The attempt is counted; its password may be checked. `accountWide`: it counts towards the e-mail's ceiling. */
  | { ok: true; accountWide: boolean }
  /**
   * Refused, with how long to wait. `address`: this key waits out its growing delay; `account`: the e-mail has had too
   * many failures from addresses it never signed in from, and this is one of them.
   */
  | { ok: false; waitMs: number; reason: "address" | "account" };

/**
 * Sign-in throttle state, shared by every server process on the database (the policy is in rules/login_attempts.ts).
 * Each method is one transaction; `at` (ms since the epoch) defaults to now.
 */
export interface LoginAttemptStore {
  /**
   * Counts an attempt BEFORE its password is checked, or refuses it: check and count are one atomic step, so however
   * many attempts arrive at once, from however many processes, no more are let through than the policy allows.
   * SQLite: one IMMEDIATE transaction. PostgreSQL: one transaction holding an advisory lock on the e-mail, so every
   * call for that e-mail, from any replica, waits for it.
   */
  reserve(key: AttemptKey, at?: number): Promise<Reservation>;
  /** Gives back the slot of an attempt that was counted but never checked (the server was too busy to check it). */
  release(key: AttemptKey, reservation: { accountWide: boolean }): Promise<void>;
  /**
   * The password was right: forgets the key's attempts and remembers the address as one the e-mail signs in from
   * (not for `known_browser`, whose key is a browser, not an address).
   */
  succeed(key: AttemptKey, at?: number): Promise<void>;
  /**
   * Drops what the policy no longer needs (keys quiet for long, addresses not used for long) and then the oldest rows
   * beyond `maxRows`; reserve() calls it now and then, so the table stays bounded. Answers how many rows it removed.
   */
  prune(at?: number, maxRows?: number): Promise<number>;
}
