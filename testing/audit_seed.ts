/**
 * Audit trail fixtures: n chained entries written straight into a console database (SQLite file or PostgreSQL), a
 * real chain that audit-verify accepts, fast enough for a million (the bench) or a hundred thousand (the CSV test).
 * A fixture, not the code under test: the stores append one entry per change.
 */
import postgres from "postgres";
import { openDatabase } from "../server/db/sqlite/open.ts";
import { AUDIT_COLUMNS, entryHash, GENESIS_HASH, rowValues } from "../server/db/rules/audit.ts";
import type { AuditEntry } from "../shared/schemas/audit.ts";
import { newId } from "../shared/ids.ts";

const ACTIONS = ["device.update", "device.create", "firmware.upload", "product_type.update", "auth.sign_in"] as const;

export interface SeedOptions {
  /** Extra bytes in each entry's details (a long text), to make the CSV heavy. */
  padding?: number;
  /** Operators acting in turn (op-0@example.com ...). */
  actors?: number;
  /** Devices targeted in turn (DEV-000000 ...). */
  devices?: number;
}

/** The entries after `previous` (seq, hash), made in order: entry k is about device k % devices, by operator k % actors. */
function* entries(previous: { seq: number; hash: string }, n: number, opts: SeedOptions): Generator<AuditEntry> {
  const pad = opts.padding ? "x".repeat(opts.padding) : undefined;
  const actors = opts.actors ?? 5, devices = opts.devices ?? 1000;
  const start = Date.now() - n * 1000;
  let last = previous;
  for (let k = 0; k < n; k++) {
    const seq = last.seq + 1;
    const device = `DEV-${String(seq % devices).padStart(6, "0")}`;
    const op = seq % actors;
    const body = {
      _id: newId(),
      seq,
      at: new Date(start + k * 1000).toISOString(),
      actor: { type: "operator" as const, id: `op-${op}`, name: `op-${op}@example.com` },
      action: ACTIONS[seq % ACTIONS.length],
      target: { type: "device", id: device, name: device },
      details: pad ? { changes: { firmware: null }, note: pad } : { changes: { firmware: null } },
      ip: "192.0.2.10",
    };
    const e = { ...body, hash: entryHash(last.hash, body) };
    last = { seq, hash: e.hash };
    yield e;
  }
}

/** Appends n chained entries to the SQLite console database in `file` (migrated first if new). */
export function seedAuditSqlite(file: string, n: number, opts: SeedOptions = {}): void {
  const db = openDatabase(file);
  try {
    db.exec("BEGIN IMMEDIATE");
    const head = db.prepare("SELECT seq, hash FROM audit_head").get() as { seq: number; hash: string };
    const insert = db.prepare(`INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES (${"?, ".repeat(12)}?)`);
    let last = head;
    for (const e of entries(head, n, opts)) {
      insert.run(...rowValues(e));
      last = { seq: e.seq, hash: e.hash };
    }
    db.prepare("UPDATE audit_head SET seq = ?, hash = ?").run(last.seq, last.hash);
    db.exec("COMMIT");
  } finally {
    db.close();
  }
}

/** Appends n chained entries to the (migrated) PostgreSQL console database at `url`, in batches. */
export async function seedAuditPostgres(url: string, n: number, opts: SeedOptions = {}): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      const [h] = await tx`SELECT seq, hash FROM audit_head FOR UPDATE`;
      let last = { seq: Number(h.seq), hash: h.hash as string };
      const all = entries(last, n, opts);
      for (;;) {
        // next() by hand: a break out of for-of would close the generator.
        const batch: AuditEntry[] = [];
        for (let r = all.next(); !r.done; r = all.next()) {
          batch.push(r.value);
          if (batch.length === 5000) break;
        }
        if (!batch.length) break;
        const cols = AUDIT_COLUMNS.split(", ");
        const values = cols.map((_, i) => batch.map((e) => rowValues(e)[i]));
        await tx.unsafe(
          `INSERT INTO audit_entries (${AUDIT_COLUMNS}) SELECT * FROM unnest(
            $1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
            $10::text[], $11::text[], $12::text[], $13::text[])`,
          values as never[],
        );
        last = { seq: batch[batch.length - 1].seq, hash: batch[batch.length - 1].hash };
      }
      await tx`UPDATE audit_head SET seq = ${last.seq}, hash = ${last.hash}`;
    });
  } finally {
    await sql.end();
  }
}

export { GENESIS_HASH };
