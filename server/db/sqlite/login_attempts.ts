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
import { type Db, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

/** reserve() prunes once in this many calls, so the table never grows far past its bound. */
const PRUNE_EVERY = 256;

interface Row {
  attempts: number;
  firstAt: string;
  lastAt: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (text: string) => Date.parse(text);

function readRow(db: Db, scope: string, email: string, address: string): Row | undefined {
  return sql(
    db,
    `SELECT attempts, first_at AS firstAt, last_at AS lastAt FROM login_attempts
     WHERE scope = ? AND email_key = ? AND address = ?`,
  ).get(scope, email, address) as Row | undefined;
}

function writeRow(db: Db, scope: string, email: string, address: string, row: Row): void {
  sql(
    db,
    `INSERT INTO login_attempts (scope, email_key, address, attempts, first_at, last_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, email_key, address) DO UPDATE
     SET attempts = excluded.attempts, first_at = excluded.first_at, last_at = excluded.last_at`,
  ).run(scope, email, address, row.attempts, row.firstAt, row.lastAt);
}

/** Takes one attempt back (never below zero); a row left with none goes. */
function uncount(db: Db, scope: string, email: string, address: string): void {
  sql(
    db,
    "UPDATE login_attempts SET attempts = attempts - 1 WHERE scope = ? AND email_key = ? AND address = ? AND attempts > 0",
  ).run(scope, email, address);
  sql(db, "DELETE FROM login_attempts WHERE scope = ? AND email_key = ? AND address = ? AND attempts <= 0")
    .run(scope, email, address);
}

function isKnownAddress(db: Db, email: string, address: string, at: number): boolean {
  return sql(
    db,
    "SELECT 1 FROM login_addresses WHERE email_key = ? AND address = ? AND last_success_at > ?",
  ).get(email, address, iso(at - KNOWN_ADDRESS_MS)) !== undefined;
}

function prune(db: Db, at: number, maxRows: number): number {
  return transaction(db, () => {
    let removed = Number(
      sql(db, "DELETE FROM login_attempts WHERE last_at < ?").run(iso(at - FORGET_AFTER_MS)).changes,
    );
    removed += Number(
      sql(db, "DELETE FROM login_addresses WHERE last_success_at < ?").run(iso(at - KNOWN_ADDRESS_MS)).changes,
    );
    const { n } = sql(db, "SELECT count(*) AS n FROM login_attempts").get() as { n: number };
    if (n > maxRows) {
      removed += Number(
        sql(
          db,
          `DELETE FROM login_attempts WHERE (scope, email_key, address) IN
           (SELECT scope, email_key, address FROM login_attempts ORDER BY last_at LIMIT ?)`,
        ).run(n - maxRows).changes,
      );
    }
    return removed;
  });
}

function reserve(db: Db, key: AttemptKey, at: number): Reservation {
  const email = emailKey(key.email);
  const row = readRow(db, key.scope, email, key.address);
  const live = row && at - ms(row.lastAt) < FORGET_AFTER_MS ? row : undefined;
  const attempts = live?.attempts ?? 0;
  if (live) {
    const waitMs = ms(live.lastAt) + delayAfter(attempts) - at;
    if (waitMs > 0) return { ok: false, waitMs, reason: "address" };
  }

  const accountWide = key.scope === "login" && !isKnownAddress(db, email, key.address, at);
  if (accountWide) {
    const account = readRow(db, key.scope, email, ACCOUNT_WIDE);
    const current = account && at - ms(account.firstAt) < ACCOUNT_WINDOW_MS ? account : undefined;
    if (current && current.attempts >= ACCOUNT_CEILING) {
      // Under attack: this place's attempts are paced; its first waits from when it was first refused (a row of 0).
      if (!live) {
        writeRow(db, key.scope, email, key.address, { attempts: 0, firstAt: iso(at), lastAt: iso(at) });
        return { ok: false, waitMs: NEW_PLACE_PACE_MS, reason: "account" };
      }
      const waitMs = ms(live.lastAt) + NEW_PLACE_PACE_MS - at;
      if (waitMs > 0) return { ok: false, waitMs, reason: "account" };
    }
    writeRow(db, key.scope, email, ACCOUNT_WIDE, {
      attempts: (current?.attempts ?? 0) + 1,
      firstAt: current?.firstAt ?? iso(at),
      lastAt: iso(at),
    });
  }
  writeRow(db, key.scope, email, key.address, {
    attempts: attempts + 1,
    firstAt: live?.firstAt ?? iso(at),
    lastAt: iso(at),
  });
  return { ok: true, accountWide };
}

export function sqliteLoginAttempts(db: Db): LoginAttemptStore {
  let calls = 0;
  return promised<LoginAttemptStore>({
    reserve: (key, at = Date.now()) =>
      transaction(db, () => {
        if (++calls % PRUNE_EVERY === 0) prune(db, at, MAX_ROWS);
        return reserve(db, key, at);
      }),
    release: (key, reservation) =>
      transaction(db, () => {
        const email = emailKey(key.email);
        uncount(db, key.scope, email, key.address);
        if (reservation.accountWide) uncount(db, key.scope, email, ACCOUNT_WIDE);
      }),
    succeed: (key, at = Date.now()) =>
      transaction(db, () => {
        const email = emailKey(key.email);
        sql(db, "DELETE FROM login_attempts WHERE scope = ? AND email_key = ? AND address = ?")
          .run(key.scope, email, key.address);
        if (key.scope === "known_browser") return;
        sql(
          db,
          `INSERT INTO login_addresses (email_key, address, last_success_at) VALUES (?, ?, ?)
           ON CONFLICT (email_key, address) DO UPDATE SET last_success_at = excluded.last_success_at`,
        ).run(email, key.address, iso(at));
      }),
    prune: (at = Date.now(), maxRows = MAX_ROWS) => prune(db, at, maxRows),
  });
}
