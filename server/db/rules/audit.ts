/**
 * The engine-independent part of the audit trail: the canonical JSON an entry's hash covers, the hash, the shape of a
 * new entry, and the filtered total policy (docs/DECISIONS.md, "Audit trail").
 */
import { createHash } from "node:crypto";
import type { AuditAction, AuditEntry, AuditFilter, AuditTarget, JsonValue } from "../../../shared/schemas/audit.ts";
import { newId } from "../../../shared/ids.ts";
import { wallClock } from "../clock.ts";
import { currentAuditContext } from "../audit_context.ts";
import { csvLine } from "./csv.ts";
import { escapeText, isCleanText } from "../../../shared/text_rule.ts";

/** What a store method hands to the append function; the actor, ip, time, id and place come from elsewhere. */
export interface NewAuditEntry {
  action: AuditAction;
  target: AuditTarget | null;
  /** A JSON object: what changed (never a password or a secret). */
  details?: Record<string, unknown>;
}

/** The hash of the entry before the first: the empty string. */
export const GENESIS_HASH = "";

/**
 * Canonical JSON: JSON.stringify's text for strings and numbers, object keys sorted by UTF-16 code units (as
 * Array.prototype.sort compares), recursively, no whitespace; members whose value is undefined are left out (as
 * JSON.stringify does), so a value and its stored-and-read-back form have the same text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

/** The part of an entry its hash covers: everything but the hash. */
export type HashedEntry = Omit<AuditEntry, "hash">;

/** sha256 hex of (previous hash + canonical JSON of the entry without its hash). */
export function entryHash(previousHash: string, entry: HashedEntry): string {
  const { _id, seq, at, actor, action, target, details, ip } = entry;
  return createHash("sha256")
    .update(previousHash + canonicalJson({ _id, seq, at, actor, action, target, details, ip }), "utf8")
    .digest("hex");
}

/** A JSON-safe copy of details (Dates as ISO text, undefined members dropped), so what is stored is what is hashed. */
function jsonDetails(details: Record<string, unknown> | undefined): Record<string, JsonValue> {
  return details ? JSON.parse(JSON.stringify(details)) : {};
}

/**
 * A column's text as both engines store it byte for byte: clean text as it is, anything else (a NUL, a lone surrogate:
 * what the edge refuses, docs/REQUIREMENTS.md §17) escaped as in JSON, so the hash covers what is kept, never what an engine would
 * have made of it (SQLite writes a lone surrogate as U+FFFD, PostgreSQL refuses a NUL). Details need nothing: they are
 * stored as JSON.stringify's text, which escapes both.
 */
const stored = (s: string): string => isCleanText(s) ? s : escapeText(s);
const storedOrNull = (s: string | null): string | null => s === null ? null : stored(s);

/** The next entry of the chain after (seq, hash): actor and ip from the audit context, the time now. */
export function nextEntry(previous: { seq: number; hash: string }, entry: NewAuditEntry): AuditEntry {
  const { actor, ip } = currentAuditContext();
  const t = entry.target;
  const hashed: HashedEntry = {
    _id: newId(),
    seq: previous.seq + 1,
    at: wallClock(),
    actor: { type: actor.type, id: stored(actor.id), name: stored(actor.name) },
    action: entry.action,
    target: t ? { type: stored(t.type), id: stored(t.id), name: stored(t.name) } : null,
    details: jsonDetails(entry.details),
    ip: storedOrNull(ip),
  };
  return { ...hashed, hash: entryHash(previous.hash, hashed) };
}

/**
 * A filtered total is counted up to this many entries past the page; beyond it the answer's total is a lower bound
 * (exact: false). The unfiltered total is a counter row, always exact.
 */
export const FILTERED_COUNT_LIMIT = 10_000;

/** What verify found: how many entries it checked, and the first that does not match (null: the chain holds). */
export interface AuditVerification {
  checked: number;
  firstBad: { seq: number; _id: string; reason: string } | null;
}

/** Checks one page of the chain in order, carrying the previous hash; answers the first mismatch. */
export function verifyEntries(
  previous: { seq: number; hash: string },
  entries: AuditEntry[],
): { last: { seq: number; hash: string }; bad: AuditVerification["firstBad"] } {
  let last = previous;
  for (const e of entries) {
    if (e.seq !== last.seq + 1) {
      return { last, bad: { seq: e.seq, _id: e._id, reason: `expected entry ${last.seq + 1} next, found ${e.seq}` } };
    }
    const { hash, ...rest } = e;
    const expected = entryHash(last.hash, rest);
    if (expected !== hash) {
      return { last, bad: { seq: e.seq, _id: e._id, reason: `its hash is ${hash}, the chain gives ${expected}` } };
    }
    last = { seq: e.seq, hash };
  }
  return { last, bad: null };
}

/** An entry as one CSV line (AUDIT_CSV_COLUMNS: the row's columns in their order), CRLF-terminated. */
export const auditCsvLine = (e: AuditEntry): string => csvLine(rowValues(e));

/**
 * The chain's head as published outside the database (docs/REQUIREMENTS.md §17): `count` entries, the last one's `hash`. A
 * checkpoint holds when the chain's entry `count` has that hash; a truncated tail lacks the entry, a rewritten one
 * gives another hash.
 */
export interface AuditCheckpoint {
  count: number;
  hash: string;
}

/**
 * Walks the whole chain through `after` in bounded batches (audit-verify; both engines), checking along the way that
 * every checkpoint given is held.
 */
export async function verifyChain(
  after: (afterSeq: number, limit: number) => Promise<AuditEntry[]>,
  count: () => Promise<number>,
  checkpoints: readonly AuditCheckpoint[] = [],
  batch = 2000,
): Promise<AuditVerification> {
  const expected = new Map<number, AuditCheckpoint>();
  for (const c of checkpoints) expected.set(c.count, c);
  const contradicted = (c: AuditCheckpoint, found: AuditEntry) => ({
    seq: found.seq,
    _id: found._id,
    reason: `checkpoint ${c.count} (hash ${c.hash}) is contradicted: the chain's entry ${c.count} has hash ` +
      `${found.hash} (the entries up to it were rewritten)`,
  });
  const zero = expected.get(0);
  if (zero && zero.hash !== GENESIS_HASH) {
    return { checked: 0, firstBad: { seq: 0, _id: "(checkpoint)", reason: `checkpoint 0 has hash ${zero.hash}` } };
  }
  let last = { seq: 0, hash: GENESIS_HASH };
  for (;;) {
    const entries = await after(last.seq, batch);
    if (entries.length === 0) break;
    const result = verifyEntries(last, entries);
    // Entries before the first bad one hold: a checkpoint among them that they contradict is the finding to name.
    for (const e of entries) {
      if (result.bad && e.seq >= result.bad.seq) break;
      const c = expected.get(e.seq);
      if (c && c.hash !== e.hash) return { checked: e.seq - 1, firstBad: contradicted(c, e) };
    }
    if (result.bad) return { checked: result.last.seq, firstBad: result.bad };
    last = result.last;
  }
  // The newest entries removed: the chain that is left holds, but the head row counted more.
  const n = await count();
  if (n > last.seq) {
    return {
      checked: last.seq,
      firstBad: { seq: last.seq + 1, _id: "(missing)", reason: `entries ${last.seq + 1} to ${n} are missing` },
    };
  }
  // Removed with the head row rewritten to match: only a checkpoint published before tells.
  const beyond = [...expected.values()].filter((c) => c.count > last.seq).sort((a, b) => b.count - a.count)[0];
  if (beyond) {
    return {
      checked: last.seq,
      firstBad: {
        seq: last.seq + 1,
        _id: "(missing)",
        reason: `checkpoint ${beyond.count} (hash ${beyond.hash}) is missing: the chain ends at entry ${last.seq} ` +
          `(entries ${last.seq + 1} to ${beyond.count} or more were removed)`,
      },
    };
  }
  return { checked: last.seq, firstBad: null };
}

/** Raw row of either engine (same column names). */
export interface AuditRow {
  seq: number;
  id: string;
  at: string;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_name: string | null;
  details: string;
  ip: string | null;
  hash: string;
}

export const AUDIT_COLUMNS =
  "seq, id, at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, details, ip, hash";

export function entryFromRow(r: AuditRow): AuditEntry {
  return {
    _id: r.id,
    seq: Number(r.seq),
    at: r.at,
    actor: { type: r.actor_type as AuditEntry["actor"]["type"], id: r.actor_id, name: r.actor_name },
    action: r.action,
    target: r.target_type === null ? null : { type: r.target_type, id: r.target_id ?? "", name: r.target_name ?? "" },
    details: JSON.parse(r.details),
    ip: r.ip,
    hash: r.hash,
  };
}

/** The row values of an entry, in AUDIT_COLUMNS order. */
export function rowValues(e: AuditEntry): (string | number | null)[] {
  return [
    e.seq,
    e._id,
    e.at,
    e.actor.type,
    e.actor.id,
    e.actor.name,
    e.action,
    e.target?.type ?? null,
    e.target?.id ?? null,
    e.target?.name ?? null,
    JSON.stringify(e.details),
    e.ip,
    e.hash,
  ];
}

/**
 * The WHERE conditions of a filter, with `?` placeholders (each engine numbers them its own way), and their values.
 * `actor` matches the actor's name (an operator's e-mail, a token's name, a deviceId, "system"): one index walked in
 * seq order (an OR with the id made SQLite sort every match: 9 s for a page of one operator's 200,000 entries).
 */
export function filterConditions(f: AuditFilter): { where: string[]; values: string[] } {
  const where: string[] = [];
  const values: string[] = [];
  for (const [key, condition] of FILTER_CONDITIONS) {
    const value = f[key];
    if (value === undefined) continue;
    where.push(condition);
    values.push(value);
  }
  return { where, values };
}

/** Each filter and its condition, in the order the conditions are written. */
const FILTER_CONDITIONS: [keyof AuditFilter, string][] = [
  ["actor", "actor_name = ?"],
  ["action", "action = ?"],
  ["targetType", "target_type = ?"],
  ["targetId", "target_id = ?"],
  ["from", "at >= ?"],
  ["to", "at < ?"],
];

export const isFiltered = (f: AuditFilter) => filterConditions(f).where.length > 0;
