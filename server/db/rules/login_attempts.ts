/**
 * The sign-in throttle policy, applied by every engine inside its reserve transaction (docs/DECISIONS.md, "Operator
 * safety"). Per scope, e-mail and client address: the first FREE_ATTEMPTS attempts run at once; each further one must
 * wait after the one before, 1 s, 2 s, 4 s … up to MAX_DELAY_MS. A success starts the key again from zero.
 */
export const FREE_ATTEMPTS = 5;
export const FIRST_DELAY_MS = 1000;
export const MAX_DELAY_MS = 15 * 60_000;
/** A key without an attempt for this long starts again from zero (and its row may go). */
export const FORGET_AFTER_MS = 24 * 3_600_000;

/**
 * Against guessing spread over many addresses: within ACCOUNT_WINDOW_MS, ACCOUNT_CEILING sign-in attempts for one
 * e-mail from addresses it has not signed in from within KNOWN_ADDRESS_MS; beyond it (the e-mail is under attack), each
 * such address is paced: its attempts must be NEW_PLACE_PACE_MS apart, the first one too (it waits that long after it
 * was first refused). So the owner in a new place waits at most NEW_PLACE_PACE_MS (docs/REQUIREMENTS.md §19: ≤ 30 s), while each
 * address of the attack gets one guess per pace at most, then its own growing delay. Addresses the e-mail has signed
 * in from, and browsers holding its known-browser mark, are never held up by the ceiling.
 */
export const ACCOUNT_CEILING = 50;
export const ACCOUNT_WINDOW_MS = 15 * 60_000;
export const KNOWN_ADDRESS_MS = 30 * 24 * 3_600_000;
export const NEW_PLACE_PACE_MS = 30_000;
/** The address under which a store keeps an e-mail's ceiling count (never a client address). */
export const ACCOUNT_WIDE = "*";

/** The throttle table's bound: beyond it the oldest rows go first. */
export const MAX_ROWS = 100_000;

/** How long after the latest attempt the next may start, for a key holding this many counted attempts. */
export function delayAfter(attempts: number): number {
  if (attempts < FREE_ATTEMPTS) return 0;
  return Math.min(FIRST_DELAY_MS * 2 ** (attempts - FREE_ATTEMPTS), MAX_DELAY_MS);
}
