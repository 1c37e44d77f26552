/**
 * The audit trail on PostgreSQL. appendAudit() runs inside the caller's transaction and locks the head row (SELECT
 * ... FOR UPDATE) before it reads the previous hash: appends from every connection and every replica wait for each
 * other there until the appending transaction ends, so the chain stays one line. Taken last in the transaction, the
 * head row is never held while waiting for any other lock (no deadlock with the write lock or row locks).
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
import type { Sql, Tx } from "./open.ts";

/** `?` placeholders as $1, $2, ... from `start`. */
function numbered(text: string, start = 1): string {
  let n = start;
  return text.replace(/\?/g, () => `$${n++}`);
}

const INSERT =
  `INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`;

/**
 * Appends one entry to the chain in the caller's transaction (the one making the change): if the change rolls back,
 * so does its entry. Call it as the transaction's last statement.
 */
export async function appendAudit(tx: Tx, entry: NewAuditEntry): Promise<AuditEntry> {
  const [head] = await tx`SELECT seq, hash FROM audit_head FOR UPDATE`;
  const e = nextEntry({ seq: Number(head.seq), hash: head.hash as string }, entry);
  await tx.unsafe(
    `WITH ins AS (${INSERT}) UPDATE audit_head SET seq = $1, hash = $13`,
    rowValues(e) as (string | number | null)[],
  );
  return e;
}

/**
 * One page in as few round trips as can be: unfiltered, one statement reads the head and the page's range of seq;
 * filtered, the page, then (only when the page does not show where the list ends) the bounded count. No transaction:
 * entries are never changed, so the two reads of a filtered page can differ only by entries appended in between.
 */
async function listAudit(tx: Tx, filter: AuditFilter, page: number, perPage: number): Promise<AuditPage> {
  const offset = page * perPage;
  const { where, values } = filterConditions(filter);
  if (where.length === 0) {
    const rows = await tx.unsafe(
      `SELECT h.seq AS total, e.* FROM audit_head h
       LEFT JOIN LATERAL (SELECT ${AUDIT_COLUMNS} FROM audit_entries
         WHERE seq <= h.seq - $1 AND seq > h.seq - $1 - $2 ORDER BY seq DESC) e ON true`,
      [offset, perPage],
    ) as unknown as (AuditRow & { total: number })[];
    const total = Number(rows[0].total);
    const data = rows[0].seq === null ? [] : rows.map(entryFromRow);
    return { data, total, exact: true };
  }
  const cond = numbered(where.join(" AND "));
  const k = values.length;
  const rows = await tx.unsafe(
    `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE ${cond} ORDER BY seq DESC LIMIT $${k + 1} OFFSET $${k + 2}`,
    [...values, perPage, offset],
  ) as unknown as AuditRow[];
  if (rows.length < perPage && (rows.length > 0 || offset === 0)) {
    return { data: rows.map(entryFromRow), total: offset + rows.length, exact: true };
  }
  const cap = offset + perPage + FILTERED_COUNT_LIMIT;
  const [{ n }] = await tx.unsafe(
    `SELECT count(*) AS n FROM (SELECT 1 FROM audit_entries WHERE ${cond} LIMIT $${k + 1}) m`,
    [...values, cap + 1],
  );
  return { data: rows.map(entryFromRow), total: Math.min(Number(n), cap), exact: Number(n) <= cap };
}

async function before(sql: Sql, filter: AuditFilter, beforeSeq: number | null, limit: number): Promise<AuditEntry[]> {
  const { where, values } = filterConditions(filter);
  const params: (string | number)[] = [...values];
  if (beforeSeq !== null) {
    where.push("seq < ?");
    params.push(beforeSeq);
  }
  params.push(limit);
  const rows = await sql.unsafe(
    numbered(
      `SELECT ${AUDIT_COLUMNS} FROM audit_entries ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY seq DESC LIMIT ?`,
    ),
    params,
  );
  return (rows as unknown as AuditRow[]).map(entryFromRow);
}

async function after(sql: Sql, afterSeq: number, limit: number): Promise<AuditEntry[]> {
  const rows = await sql.unsafe(
    `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [afterSeq, limit],
  );
  return (rows as unknown as AuditRow[]).map(entryFromRow);
}

export function postgresAudit(sql: Sql): AuditStore {
  const afterFn = (afterSeq: number, limit: number) => after(sql, afterSeq, limit);
  const count = async () => Number((await sql`SELECT seq FROM audit_head`)[0].seq);
  return {
    record: (entry) => sql.begin((tx) => appendAudit(tx, entry)) as Promise<AuditEntry>,
    list: (filter, page, perPage) => listAudit(sql, filter, page, perPage),
    before: (filter, beforeSeq, limit) => before(sql, filter, beforeSeq, limit),
    after: afterFn,
    count,
    head: async () => {
      const [h] = await sql`SELECT seq, hash FROM audit_head`;
      return { count: Number(h.seq), hash: h.hash as string };
    },
    verify: (checkpoints) => verifyChain(afterFn, count, checkpoints),
  };
}

/**
 * Appends many entries, in order, in the caller's transaction (a bulk change: one entry per device): the head row
 * locked once, the chain computed here, the rows inserted 500 per statement, the head written once.
 */
export async function appendAuditMany(tx: Tx, entries: Iterable<NewAuditEntry>): Promise<number> {
  const [head] = await tx`SELECT seq, hash FROM audit_head FOR UPDATE`;
  let previous = { seq: Number(head.seq), hash: head.hash as string };
  let batch: (string | number | null)[][] = [];
  let n = 0;
  const flush = async () => {
    if (!batch.length) return;
    const width = batch[0].length;
    const values = batch.map((_, r) =>
      `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(", ")})`
    );
    await tx.unsafe(`INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES ${values.join(", ")}`, batch.flat());
    batch = [];
  };
  for (const entry of entries) {
    const e = nextEntry(previous, entry);
    batch.push(rowValues(e));
    previous = { seq: e.seq, hash: e.hash };
    n++;
    if (batch.length === 500) await flush();
  }
  await flush();
  if (n) await tx`UPDATE audit_head SET seq = ${previous.seq}, hash = ${previous.hash}`;
  return n;
}
