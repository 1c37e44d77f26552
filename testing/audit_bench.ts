/**
 * The cost of auditing a write, measured on the engines' own code: the same device write (updateDevice: the patch's
 * rows, updatedAt and the revision) in a write transaction, without and with appendAudit, in alternating rounds.
 * The difference is what the entry costs each change (reading the chain's head, hashing, one insert, the head moved).
 */
import { appendAudit } from "../server/db/stores/audit.ts";
import { checkinDevice } from "../server/db/stores/device_api.ts";
import { updateDevice } from "../server/db/stores/devices.ts";
import { type Engine, write } from "../server/db/runner.ts";
import { openDatabase } from "../server/db/sqlite/open.ts";
import { sqliteEngine } from "../server/db/sqlite/runner.ts";
import { connect, migrate } from "../server/db/postgres/open.ts";
import { postgresEngine } from "../server/db/postgres/runner.ts";

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

/** The same writes on either engine. */
async function writeCost(engine: Engine, n: number): Promise<WriteCost> {
  await engine.run(write(() => checkinDevice("AUDIT-BENCH", INFO)));
  const change = { firmware: null };
  return await alternate(
    n,
    () => engine.run(write(() => updateDevice("AUDIT-BENCH", change))),
    () =>
      engine.run(write(function* () {
        yield* updateDevice("AUDIT-BENCH", change);
        yield* appendAudit(ENTRY);
      })),
  );
}

/** On the SQLite console database in `file` (created and migrated if new). */
export async function sqliteWriteCost(file: string, n: number): Promise<WriteCost> {
  const db = openDatabase(file);
  try {
    return await writeCost(sqliteEngine(db), n);
  } finally {
    db.close();
  }
}

/** On the PostgreSQL console database at `url` (migrated if new). */
export async function postgresWriteCost(url: string, n: number): Promise<WriteCost> {
  const sql = connect({ url, poolSize: 1 });
  try {
    await migrate(sql);
    return await writeCost(postgresEngine(sql), n);
  } finally {
    await sql.end();
  }
}
