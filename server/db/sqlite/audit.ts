/**
 * The audit trail on SQLite. appendAudit() runs inside the caller's write transaction (IMMEDIATE: one writer at a
 * time across every process on the file, so the chain is one line); entries are numbered 1, 2, 3, ... by the head row,
 * so a page of the unfiltered list is a range of the primary key, whatever its depth.
 */
import type { AuditEntry, AuditFilter } from "../../../shared/schemas/audit.ts";
import {
  AUDIT_COLUMNS,
  type AuditRow,
  entryFromRow,
  filterConditions,
  FILTERED_COUNT_LIMIT,
  type NewAuditEntry,
  nextEntry,
  rowValues,
  verifyChain,
} from "../rules/audit.ts";
import type { AuditPage, AuditStore } from "../types/audit.ts";
import { type Db, snapshot, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

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

const total = (db: Db) => (sql(db, "SELECT seq FROM audit_head").get() as { seq: number }).seq;

function listAudit(db: Db, filter: AuditFilter, page: number, perPage: number): AuditPage {
  const offset = page * perPage;
  const { where, values } = filterConditions(filter);
  if (where.length === 0) {
    // Entries are never deleted and numbered without gaps: page p is a range of seq.
    const n = total(db);
    const top = n - offset;
    const rows = top <= 0 ? [] : sql(
      db,
      `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE seq <= ? AND seq > ? ORDER BY seq DESC`,
    ).all(top, top - perPage) as unknown as AuditRow[];
    return { data: rows.map(entryFromRow), total: n, exact: true };
  }
  const cond = where.join(" AND ");
  const rows = sql(db, `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE ${cond} ORDER BY seq DESC LIMIT ? OFFSET ?`)
    .all(...values, perPage, offset) as unknown as AuditRow[];
  if (rows.length < perPage && (rows.length > 0 || offset === 0)) {
    return { data: rows.map(entryFromRow), total: offset + rows.length, exact: true };
  }
  const cap = offset + perPage + FILTERED_COUNT_LIMIT;
  const { n } = sql(db, `SELECT count(*) AS n FROM (SELECT 1 FROM audit_entries WHERE ${cond} LIMIT ?)`)
    .get(...values, cap + 1) as { n: number };
  return { data: rows.map(entryFromRow), total: Math.min(n, cap), exact: n <= cap };
}

function before(db: Db, filter: AuditFilter, beforeSeq: number | null, limit: number): AuditEntry[] {
  const { where, values } = filterConditions(filter);
  if (beforeSeq !== null) where.push("seq < ?");
  const rows = sql(
    db,
    `SELECT ${AUDIT_COLUMNS} FROM audit_entries ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY seq DESC LIMIT ?`,
  ).all(...values, ...(beforeSeq !== null ? [beforeSeq] : []), limit) as unknown as AuditRow[];
  return rows.map(entryFromRow);
}

function after(db: Db, afterSeq: number, limit: number): AuditEntry[] {
  const rows = sql(db, `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE seq > ? ORDER BY seq LIMIT ?`)
    .all(afterSeq, limit) as unknown as AuditRow[];
  return rows.map(entryFromRow);
}

export function sqliteAudit(db: Db): AuditStore {
  const sync = promised<Omit<AuditStore, "verify">>({
    head: () => {
      const h = sql(db, "SELECT seq, hash FROM audit_head").get() as { seq: number; hash: string };
      return { count: Number(h.seq), hash: h.hash };
    },
    record: (entry) => transaction(db, () => appendAudit(db, entry)),
    list: (filter, page, perPage) => snapshot(db, () => listAudit(db, filter, page, perPage)),
    before: (filter, beforeSeq, limit) => before(db, filter, beforeSeq, limit),
    after: (afterSeq, limit) => after(db, afterSeq, limit),
    count: () => total(db),
  });
  return { ...sync, verify: (checkpoints) => verifyChain(sync.after, sync.count, checkpoints) };
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
