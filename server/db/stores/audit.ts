/**
 * The audit trail. appendAudit() runs inside the caller's write transaction and reads the head row as it locks it
 * (PostgreSQL: FOR UPDATE; SQLite's write transaction holds the file): appends from every connection and every
 * replica wait for each other there until the appending transaction ends, so the chain stays one line. Taken last in
 * the transaction, the head row is never held while waiting for any other lock. Entries are numbered 1, 2, 3, ... by
 * the head row, so a page of the unfiltered list is a range of the primary key, whatever its depth.
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
import { all, dialect, type Engine, one, type Param, type Q, run, storeOf, unlocked } from "../runner.ts";

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
 * Appends many entries, in order, in the caller's transaction (a bulk change: one entry per device): the head row
 * read (and locked) once, the chain computed here, the rows inserted Dialect.rowsPerInsert per statement, the head
 * written once.
 */
export function* appendAuditMany(entries: Iterable<NewAuditEntry>): Q<number> {
  const d = yield* dialect();
  let previous = yield* head();
  let batch: Param[][] = [];
  let n = 0;
  const flush = function* () {
    if (!batch.length) return;
    const row = `(${batch[0].map(() => "?").join(", ")})`;
    yield* run(
      `INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES ${batch.map(() => row).join(", ")}`,
      ...batch.flat(),
    );
    batch = [];
  };
  for (const entry of entries) {
    const e = nextEntry(previous, entry);
    batch.push(rowValues(e) as Param[]);
    previous = { seq: e.seq, hash: e.hash };
    n++;
    if (batch.length === d.rowsPerInsert) yield* flush();
  }
  yield* flush();
  if (n) yield* run("UPDATE audit_head SET seq = ?, hash = ?", previous.seq, previous.hash);
  return n;
}

function* total(): Q<number> {
  return Number((yield* one<{ seq: number }>("SELECT seq FROM audit_head"))!.seq);
}

/**
 * One page in as few statements as can be: unfiltered, one statement reads the head and the page's range of seq;
 * filtered, the page, then (only when the page does not show where the list ends) the bounded count. No transaction:
 * entries are never changed, so the two reads of a filtered page can differ only by entries appended in between.
 */
function* listAudit(filter: AuditFilter, page: number, perPage: number): Q<AuditPage> {
  const offset = page * perPage;
  const { where, values } = filterConditions(filter);
  if (where.length === 0) {
    // Entries are never deleted and numbered without gaps: page p is a range of seq.
    const rows = yield* all<AuditRow & { total: number }>(
      `SELECT h.seq AS total, e.* FROM audit_head h
       LEFT JOIN audit_entries e ON e.seq <= h.seq - ? AND e.seq > h.seq - ? - ? ORDER BY e.seq DESC`,
      offset,
      offset,
      perPage,
    );
    const total = Number(rows[0].total);
    const data = rows[0].seq === null ? [] : rows.map(entryFromRow);
    return { data, total, exact: true };
  }
  const cond = where.join(" AND ");
  const rows = yield* all<AuditRow>(
    `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE ${cond} ORDER BY seq DESC LIMIT ? OFFSET ?`,
    ...values,
    perPage,
    offset,
  );
  if (rows.length < perPage && (rows.length > 0 || offset === 0)) {
    return { data: rows.map(entryFromRow), total: offset + rows.length, exact: true };
  }
  const cap = offset + perPage + FILTERED_COUNT_LIMIT;
  const n = Number(
    (yield* one<{ n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM audit_entries WHERE ${cond} LIMIT ?) m`,
      ...values,
      cap + 1,
    ))!.n,
  );
  return { data: rows.map(entryFromRow), total: Math.min(n, cap), exact: n <= cap };
}

function* before(filter: AuditFilter, beforeSeq: number | null, limit: number): Q<AuditEntry[]> {
  const { where, values } = filterConditions(filter);
  const params: Param[] = [...values];
  if (beforeSeq !== null) {
    where.push("seq < ?");
    params.push(beforeSeq);
  }
  const rows = yield* all<AuditRow>(
    `SELECT ${AUDIT_COLUMNS} FROM audit_entries ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY seq DESC LIMIT ?`,
    ...params,
    limit,
  );
  return rows.map(entryFromRow);
}

export function auditStore(engine: Engine): AuditStore {
  const store = storeOf<Omit<AuditStore, "verify">>(engine, {
    *head() {
      const h = (yield* one<{ seq: number; hash: string }>("SELECT seq, hash FROM audit_head"))!;
      return { count: Number(h.seq), hash: h.hash };
    },
    // No write lock: the head row, locked by appendAudit, orders it against every other append.
    record: (entry) => unlocked(() => appendAudit(entry)),
    list: listAudit,
    before,
    *after(afterSeq, limit) {
      const rows = yield* all<AuditRow>(
        `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE seq > ? ORDER BY seq LIMIT ?`,
        afterSeq,
        limit,
      );
      return rows.map(entryFromRow);
    },
    count: total,
  });
  return { ...store, verify: (checkpoints) => verifyChain(store.after, store.count, checkpoints) };
}
