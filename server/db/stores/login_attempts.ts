import { emailKey } from "../rules/operators.ts";
import {
  ACCOUNT_CEILING,
  ACCOUNT_WIDE,
  ACCOUNT_WINDOW_MS,
  delayAfter,
  FORGET_AFTER_MS,
  KNOWN_ADDRESS_MS,
  MAX_ROWS,
  NEW_PLACE_PACE_MS,
} from "../rules/login_attempts.ts";
import type { AttemptKey, LoginAttemptStore, Reservation } from "../types/login_attempts.ts";
import { type Engine, keyed, one, type Q, run, storeOf } from "../runner.ts";

/** reserve() prunes once in this many calls, so the table never grows far past its bound. */
const PRUNE_EVERY = 256;

interface Row {
  attempts: number;
  firstAt: string;
  lastAt: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (text: string) => Date.parse(text);

function* readRow(scope: string, email: string, address: string): Q<Row | undefined> {
  const r = yield* one<{ attempts: number; first_at: string; last_at: string }>(
    "SELECT attempts, first_at, last_at FROM login_attempts WHERE scope = ? AND email_key = ? AND address = ?",
    scope,
    email,
    address,
  );
  return r ? { attempts: Number(r.attempts), firstAt: r.first_at, lastAt: r.last_at } : undefined;
}

function* writeRow(scope: string, email: string, address: string, row: Row): Q<void> {
  yield* run(
    `INSERT INTO login_attempts (scope, email_key, address, attempts, first_at, last_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, email_key, address) DO UPDATE
     SET attempts = excluded.attempts, first_at = excluded.first_at, last_at = excluded.last_at`,
    scope,
    email,
    address,
    row.attempts,
    row.firstAt,
    row.lastAt,
  );
}

/** Takes one attempt back (never below zero); a row left with none goes. */
function* uncount(scope: string, email: string, address: string): Q<void> {
  yield* run(
    "UPDATE login_attempts SET attempts = attempts - 1 WHERE scope = ? AND email_key = ? AND address = ? AND attempts > 0",
    scope,
    email,
    address,
  );
  yield* run(
    "DELETE FROM login_attempts WHERE scope = ? AND email_key = ? AND address = ? AND attempts <= 0",
    scope,
    email,
    address,
  );
}

function* isKnownAddress(email: string, address: string, at: number): Q<boolean> {
  return (yield* one(
    "SELECT 1 FROM login_addresses WHERE email_key = ? AND address = ? AND last_success_at > ?",
    email,
    address,
    iso(at - KNOWN_ADDRESS_MS),
  )) !== undefined;
}

function* prune(at: number, maxRows: number): Q<number> {
  let removed = yield* run("DELETE FROM login_attempts WHERE last_at < ?", iso(at - FORGET_AFTER_MS));
  removed += yield* run("DELETE FROM login_addresses WHERE last_success_at < ?", iso(at - KNOWN_ADDRESS_MS));
  const n = Number((yield* one<{ n: number }>("SELECT count(*) AS n FROM login_attempts"))!.n);
  if (n > maxRows) {
    removed += yield* run(
      `DELETE FROM login_attempts WHERE (scope, email_key, address) IN
       (SELECT scope, email_key, address FROM login_attempts ORDER BY last_at LIMIT ?)`,
      n - maxRows,
    );
  }
  return removed;
}

/** Checks and counts as one step: the caller's transaction is serialized with the others on the same e-mail. */
function* reserve(key: AttemptKey, at: number): Q<Reservation> {
  const email = emailKey(key.email);
  const row = yield* readRow(key.scope, email, key.address);
  const live = row && at - ms(row.lastAt) < FORGET_AFTER_MS ? row : undefined;
  const attempts = live?.attempts ?? 0;
  if (live) {
    const waitMs = ms(live.lastAt) + delayAfter(attempts) - at;
    if (waitMs > 0) return { ok: false, waitMs, reason: "address" };
  }

  const accountWide = key.scope === "login" && !(yield* isKnownAddress(email, key.address, at));
  if (accountWide) {
    const account = yield* readRow(key.scope, email, ACCOUNT_WIDE);
    const current = account && at - ms(account.firstAt) < ACCOUNT_WINDOW_MS ? account : undefined;
    if (current && current.attempts >= ACCOUNT_CEILING) {
      // Under attack: this place's attempts are paced; its first waits from when it was first refused (a row of 0).
      if (!live) {
        yield* writeRow(key.scope, email, key.address, { attempts: 0, firstAt: iso(at), lastAt: iso(at) });
        return { ok: false, waitMs: NEW_PLACE_PACE_MS, reason: "account" };
      }
      const waitMs = ms(live.lastAt) + NEW_PLACE_PACE_MS - at;
      if (waitMs > 0) return { ok: false, waitMs, reason: "account" };
    }
    yield* writeRow(key.scope, email, ACCOUNT_WIDE, {
      attempts: (current?.attempts ?? 0) + 1,
      firstAt: current?.firstAt ?? iso(at),
      lastAt: iso(at),
    });
  }
  yield* writeRow(key.scope, email, key.address, {
    attempts: attempts + 1,
    firstAt: live?.firstAt ?? iso(at),
    lastAt: iso(at),
  });
  return { ok: true, accountWide };
}

/**
 * Each call is one transaction serialized with the others on the same e-mail (PostgreSQL: an advisory lock on it,
 * across every replica; SQLite: the one writer).
 */
export function loginAttemptStore(engine: Engine): LoginAttemptStore {
  let calls = 0;
  return storeOf<LoginAttemptStore>(engine, {
    reserve: (key, at = Date.now()) =>
      keyed(emailKey(key.email), function* () {
        if (++calls % PRUNE_EVERY === 0) yield* prune(at, MAX_ROWS);
        return yield* reserve(key, at);
      }),
    release: (key, reservation) =>
      keyed(emailKey(key.email), function* () {
        const email = emailKey(key.email);
        yield* uncount(key.scope, email, key.address);
        if (reservation.accountWide) yield* uncount(key.scope, email, ACCOUNT_WIDE);
      }),
    succeed: (key, at = Date.now()) =>
      keyed(emailKey(key.email), function* () {
        const email = emailKey(key.email);
        yield* run(
          "DELETE FROM login_attempts WHERE scope = ? AND email_key = ? AND address = ?",
          key.scope,
          email,
          key.address,
        );
        if (key.scope === "known_browser") return;
        yield* run(
          `INSERT INTO login_addresses (email_key, address, last_success_at) VALUES (?, ?, ?)
           ON CONFLICT (email_key, address) DO UPDATE SET last_success_at = excluded.last_success_at`,
          email,
          key.address,
          iso(at),
        );
      }),
    prune: (at = Date.now(), maxRows = MAX_ROWS) => keyed("*prune", () => prune(at, maxRows)),
  });
}
