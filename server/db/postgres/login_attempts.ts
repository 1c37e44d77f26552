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
import { keyed, type Sql, type Tx } from "./open.ts";

const PRUNE_EVERY = 256;

interface Row {
  attempts: number;
  firstAt: string;
  lastAt: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (text: string) => Date.parse(text);

async function readRow(tx: Tx, scope: string, email: string, address: string): Promise<Row | undefined> {
  const rows = await tx`SELECT attempts, first_at, last_at FROM login_attempts
    WHERE scope = ${scope} AND email_key = ${email} AND address = ${address}`;
  return rows.length
    ? { attempts: Number(rows[0].attempts), firstAt: rows[0].first_at, lastAt: rows[0].last_at }
    : undefined;
}

async function writeRow(tx: Tx, scope: string, email: string, address: string, row: Row): Promise<void> {
  await tx`INSERT INTO login_attempts (scope, email_key, address, attempts, first_at, last_at)
    VALUES (${scope}, ${email}, ${address}, ${row.attempts}, ${row.firstAt}, ${row.lastAt})
    ON CONFLICT (scope, email_key, address) DO UPDATE
    SET attempts = excluded.attempts, first_at = excluded.first_at, last_at = excluded.last_at`;
}

async function uncount(tx: Tx, scope: string, email: string, address: string): Promise<void> {
  await tx`UPDATE login_attempts SET attempts = attempts - 1
    WHERE scope = ${scope} AND email_key = ${email} AND address = ${address} AND attempts > 0`;
  await tx`DELETE FROM login_attempts
    WHERE scope = ${scope} AND email_key = ${email} AND address = ${address} AND attempts <= 0`;
}

async function prune(tx: Tx, at: number, maxRows: number): Promise<number> {
  let removed = (await tx`DELETE FROM login_attempts WHERE last_at < ${iso(at - FORGET_AFTER_MS)}`).count;
  removed += (await tx`DELETE FROM login_addresses WHERE last_success_at < ${iso(at - KNOWN_ADDRESS_MS)}`).count;
  const n = Number((await tx`SELECT count(*) AS n FROM login_attempts`)[0].n);
  if (n > maxRows) {
    removed += (await tx`DELETE FROM login_attempts WHERE (scope, email_key, address) IN
      (SELECT scope, email_key, address FROM login_attempts ORDER BY last_at LIMIT ${n - maxRows})`).count;
  }
  return removed;
}

/** The same policy steps as SQLite's reserve(), under the write lock: check and count are one atomic step. */
async function reserve(tx: Tx, key: AttemptKey, at: number): Promise<Reservation> {
  const email = emailKey(key.email);
  const row = await readRow(tx, key.scope, email, key.address);
  const live = row && at - ms(row.lastAt) < FORGET_AFTER_MS ? row : undefined;
  const attempts = live?.attempts ?? 0;
  if (live) {
    const waitMs = ms(live.lastAt) + delayAfter(attempts) - at;
    if (waitMs > 0) return { ok: false, waitMs, reason: "address" };
  }
  const known = key.scope === "login" &&
    (await tx`SELECT 1 FROM login_addresses WHERE email_key = ${email} AND address = ${key.address}
      AND last_success_at > ${iso(at - KNOWN_ADDRESS_MS)}`).length > 0;
  const accountWide = key.scope === "login" && !known;
  if (accountWide) {
    const account = await readRow(tx, key.scope, email, ACCOUNT_WIDE);
    const current = account && at - ms(account.firstAt) < ACCOUNT_WINDOW_MS ? account : undefined;
    if (current && current.attempts >= ACCOUNT_CEILING) {
      if (!live) {
        await writeRow(tx, key.scope, email, key.address, { attempts: 0, firstAt: iso(at), lastAt: iso(at) });
        return { ok: false, waitMs: NEW_PLACE_PACE_MS, reason: "account" };
      }
      const waitMs = ms(live.lastAt) + NEW_PLACE_PACE_MS - at;
      if (waitMs > 0) return { ok: false, waitMs, reason: "account" };
    }
    await writeRow(tx, key.scope, email, ACCOUNT_WIDE, {
      attempts: (current?.attempts ?? 0) + 1,
      firstAt: current?.firstAt ?? iso(at),
      lastAt: iso(at),
    });
  }
  await writeRow(tx, key.scope, email, key.address, {
    attempts: attempts + 1,
    firstAt: live?.firstAt ?? iso(at),
    lastAt: iso(at),
  });
  return { ok: true, accountWide };
}

export function postgresLoginAttempts(sql: Sql): LoginAttemptStore {
  let calls = 0;
  return {
    // Each call is serialized with the others on the same e-mail (an advisory lock on it), across every replica.
    reserve: (key, at = Date.now()) =>
      keyed(sql, emailKey(key.email), async (tx) => {
        if (++calls % PRUNE_EVERY === 0) await prune(tx, at, MAX_ROWS);
        return await reserve(tx, key, at);
      }),
    release: (key, reservation) =>
      keyed(sql, emailKey(key.email), async (tx) => {
        const email = emailKey(key.email);
        await uncount(tx, key.scope, email, key.address);
        if (reservation.accountWide) await uncount(tx, key.scope, email, ACCOUNT_WIDE);
      }),
    succeed: (key, at = Date.now()) =>
      keyed(sql, emailKey(key.email), async (tx) => {
        const email = emailKey(key.email);
        await tx`DELETE FROM login_attempts WHERE scope = ${key.scope} AND email_key = ${email}
          AND address = ${key.address}`;
        if (key.scope === "known_browser") return;
        await tx`INSERT INTO login_addresses (email_key, address, last_success_at)
          VALUES (${email}, ${key.address}, ${iso(at)})
          ON CONFLICT (email_key, address) DO UPDATE SET last_success_at = excluded.last_success_at`;
      }),
    prune: (at = Date.now(), maxRows = MAX_ROWS) => keyed(sql, "*prune", (tx) => prune(tx, at, maxRows)),
  };
}
