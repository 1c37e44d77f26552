/**
 * The audit trail's appends for the PostgreSQL stores not yet written once (the store: stores/audit.ts). appendAudit() runs inside the caller's transaction and locks the head row (SELECT
 * ... FOR UPDATE) before it reads the previous hash: appends from every connection and every replica wait for each
 * other there until the appending transaction ends, so the chain stays one line. Taken last in the transaction, the
 * head row is never held while waiting for any other lock (no deadlock with the write lock or row locks).
 */
import type { AuditEntry } from "../../../shared/schemas/audit.ts";
import { AUDIT_COLUMNS, type NewAuditEntry, nextEntry, rowValues } from "../rules/audit.ts";
import type { Tx } from "./open.ts";

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
