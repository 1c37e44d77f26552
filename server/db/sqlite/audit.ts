/**
 * The audit trail's appends for the SQLite stores not yet written once (the store: stores/audit.ts). appendAudit() runs inside the caller's write transaction (IMMEDIATE: one writer at a
 * time across every process on the file, so the chain is one line); entries are numbered 1, 2, 3, ... by the head row,
 * so a page of the unfiltered list is a range of the primary key, whatever its depth.
 */
import type { AuditEntry } from "../../../shared/schemas/audit.ts";
import { AUDIT_COLUMNS, type NewAuditEntry, nextEntry, rowValues } from "../rules/audit.ts";
import { type Db, sql } from "./open.ts";

const INSERT = `INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Appends one entry to the chain in the caller's transaction (the one making the change): if the change rolls back,
 * so does its entry. Call it as the transaction's last write.
 */
export function appendAudit(db: Db, entry: NewAuditEntry): AuditEntry {
  if (!db.isTransaction) throw new Error("appendAudit(): must run inside the transaction of the change");
  const head = sql(db, "SELECT seq, hash FROM audit_head").get() as { seq: number; hash: string };
  const e = nextEntry(head, entry);
  sql(db, INSERT).run(...rowValues(e));
  sql(db, "UPDATE audit_head SET seq = ?, hash = ?").run(e.seq, e.hash);
  return e;
}

/**
 * Appends many entries, in order, in the caller's transaction (a bulk change: one entry per device), with one read
 * and one write of the head row.
 */
export function appendAuditMany(db: Db, entries: Iterable<NewAuditEntry>): number {
  if (!db.isTransaction) throw new Error("appendAuditMany(): must run inside the transaction of the change");
  let head = sql(db, "SELECT seq, hash FROM audit_head").get() as { seq: number; hash: string };
  const insert = sql(db, INSERT);
  let n = 0;
  for (const entry of entries) {
    const e = nextEntry(head, entry);
    insert.run(...rowValues(e));
    head = { seq: e.seq, hash: e.hash };
    n++;
  }
  if (n) sql(db, "UPDATE audit_head SET seq = ?, hash = ?").run(head.seq, head.hash);
  return n;
}
