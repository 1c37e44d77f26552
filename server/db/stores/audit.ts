/**
 * The audit trail. appendAudit() runs inside the caller's write transaction and reads the head row as it locks it
 * (PostgreSQL: FOR UPDATE; SQLite's write transaction holds the file): appends from every connection and every
 * replica wait for each other there until the appending transaction ends, so the chain stays one line. Taken last in
 * the transaction, the head row is never held while waiting for any other lock. Entries are numbered 1, 2, 3, ... by
 * the head row, so a page of the unfiltered list is a range of the primary key, whatever its depth.
 */
import type { AuditEntry } from "../../../shared/schemas/audit.ts";
import { AUDIT_COLUMNS, type NewAuditEntry, nextEntry, rowValues } from "../rules/audit.ts";
import { dialect, one, type Param, type Q, run } from "../runner.ts";

const INSERT = `INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function* head(): Q<{ seq: number; hash: string }> {
  const d = yield* dialect();
  const h = (yield* one<{ seq: number; hash: string }>(`SELECT seq, hash FROM audit_head${d.forUpdate}`))!;
  return { seq: Number(h.seq), hash: h.hash };
}

/**
 * Appends one entry to the chain in the caller's transaction (the one making the change): if the change rolls back,
 * so does its entry. Call it as the transaction's last write.
 */
export function* appendAudit(entry: NewAuditEntry): Q<AuditEntry> {
  const d = yield* dialect();
  const e = nextEntry(yield* head(), entry);
  const values = rowValues(e) as Param[];
  if (d.writableCte) {
    yield* run(`WITH ins AS (${INSERT}) UPDATE audit_head SET seq = ?, hash = ?`, ...values, e.seq, e.hash);
  } else {
    yield* run(INSERT, ...values);
    yield* run("UPDATE audit_head SET seq = ?, hash = ?", e.seq, e.hash);
  }
  return e;
}

/**
 * Appends many entries, in order, in the caller's transaction (a bulk change: one entry per device), with one read
 * and one write of the head row.
 */
export function* appendAuditMany(entries: Iterable<NewAuditEntry>): Q<number> {
  let previous = yield* head();
  let n = 0;
  for (const entry of entries) {
    const e = nextEntry(previous, entry);
    yield* run(INSERT, ...rowValues(e) as Param[]);
    previous = { seq: e.seq, hash: e.hash };
    n++;
  }
  if (n) yield* run("UPDATE audit_head SET seq = ?, hash = ?", previous.seq, previous.hash);
  return n;
}
