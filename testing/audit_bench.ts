/**
 * The cost of auditing a write, measured on the engines' own code: the same device write (updateDevice: the patch's
 * rows, updatedAt and the revision) in a write transaction, without and with appendAudit, in alternating rounds.
 * The difference is what the entry costs each change (reading the chain's head, hashing, one insert, the head moved).
 */
import { appendAudit as appendSqlite } from "../server/db/sqlite/audit.ts";
import { checkinDevice as checkinSqlite } from "../server/db/sqlite/device_api.ts";
import { updateDevice as updateSqlite } from "../server/db/sqlite/devices.ts";
import { openDatabase, transaction } from "../server/db/sqlite/open.ts";
import { appendAudit as appendPostgres } from "../server/db/postgres/audit.ts";
import { checkinDevice as checkinPostgres } from "../server/db/postgres/device_api.ts";
import { updateDevice as updatePostgres } from "../server/db/postgres/devices.ts";
import { connect, migrate, write } from "../server/db/postgres/open.ts";

export interface WriteCost {
  /** Mean µs of one write transaction without the entry, and with it. */
  plainUs: number;
  auditedUs: number;
}

const INFO = { app: "1", os: "1", channels: [] };
const ENTRY = {
  action: "device.update" as const,
  target: { type: "device", id: "AUDIT-BENCH", name: "AUDIT-BENCH" },
  details: { changes: { firmware: null } },
};

async function alternate(n: number, plain: () => unknown, audited: () => unknown): Promise<WriteCost> {
  let plainMs = 0, auditedMs = 0;
  const round = Math.max(1, Math.floor(n / 10));
  for (let done = 0; done < n; done += round) {
    let t = performance.now();
    for (let i = 0; i < round; i++) await plain();
    plainMs += performance.now() - t;
    t = performance.now();
    for (let i = 0; i < round; i++) await audited();
    auditedMs += performance.now() - t;
  }
  const count = Math.ceil(n / round) * round;
  return { plainUs: (plainMs / count) * 1000, auditedUs: (auditedMs / count) * 1000 };
}

/** On the SQLite console database in `file` (created and migrated if new). */
export async function sqliteWriteCost(file: string, n: number): Promise<WriteCost> {
  const db = openDatabase(file);
  try {
    transaction(db, () => checkinSqlite(db, "AUDIT-BENCH", INFO));
    const change = { firmware: null };
    return await alternate(
      n,
      () => transaction(db, () => updateSqlite(db, "AUDIT-BENCH", change)),
      () =>
        transaction(db, () => {
          updateSqlite(db, "AUDIT-BENCH", change);
          appendSqlite(db, ENTRY);
        }),
    );
  } finally {
    db.close();
  }
}

/** On the PostgreSQL console database at `url` (migrated if new). */
export async function postgresWriteCost(url: string, n: number): Promise<WriteCost> {
  const sql = connect({ url, poolSize: 1 });
  try {
    await migrate(sql);
    await write(sql, (tx) => checkinPostgres(tx, "AUDIT-BENCH", INFO));
    const change = { firmware: null };
    return await alternate(
      n,
      () => write(sql, (tx) => updatePostgres(tx, "AUDIT-BENCH", change)),
      () =>
        write(sql, async (tx) => {
          await updatePostgres(tx, "AUDIT-BENCH", change);
          await appendPostgres(tx, ENTRY);
        }),
    );
  } finally {
    await sql.end();
  }
}
