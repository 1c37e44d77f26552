/**
 * A varied fleet for the fleet-views bench (scripts/bench/fleet.ts), written straight into a console database on
 * either engine: product types, custom firmwares, app and OS versions and check-ins spread over the devices, each a
 * function of the device's number, so both engines hold the same fleet.
 */
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";

export interface FleetRefs {
  productTypeIds: string[];
  firmwareIds: string[];
}

export const FLEET_APPS = ["2.4.1", "2.4.0", "2.3.9", "2.5.0-beta", null] as const;
const OSES = ["5.10.0", "5.15.0", "6.1.0"];
const DAY = 86_400_000;

/** The columns of device i (0-based) at time t0. */
function deviceRow(i: number, t0: number, refs: FleetRefs) {
  const id = `DEV-${String(i).padStart(6, "0")}`;
  const productType = i % 10 === 0 ? null : refs.productTypeIds[i % refs.productTypeIds.length];
  const firmware = i % 50 === 0 && refs.firmwareIds.length ? refs.firmwareIds[i % refs.firmwareIds.length] : null;
  const info = JSON.stringify({ app: FLEET_APPS[i % FLEET_APPS.length], os: OSES[i % OSES.length], channels: [] });
  const seen = i % 20 === 0 ? null : new Date(t0 - ((i * 7919) % (30 * 24 * 60)) * 60_000).toISOString();
  const created = new Date(t0 - 90 * DAY + i * 1000).toISOString();
  const updated = new Date(t0 - ((i * 31) % 86_400) * 1000).toISOString();
  return [id, productType, firmware, created, updated, seen, info] as const;
}

/** devices.seen_hour of a check-in time (null: never). */
const hourOf = (seen: string | null) => seen === null ? null : seen.slice(0, 13);

/** The bench's PostgreSQL devices to insert: the row with the hour of its check-in, and its exact time beside it. */
function postgresRow(i: number, t0: number, refs: FleetRefs) {
  const [device_id, product_type_id, firmware_id, created_at, updated_at, seen, version_info] = deviceRow(i, t0, refs);
  return {
    row: { device_id, product_type_id, firmware_id, created_at, updated_at, seen_hour: hourOf(seen), version_info },
    seen: { device_id, last_logged_in: seen },
  };
}

/**
 * The statistics a seeded SQLite fleet gets: none (as a console runs: it never runs ANALYZE), a full ANALYZE, or
 * SQLite's own `PRAGMA optimize=0x10002` (what SQLite recommends a long-lived connection run at open).
 */
export type SqliteStats = "none" | "analyze" | "optimize";

/** Returns how many rows sqlite_stat1 holds after it. */
export function seedFleetSqlite(file: string, n: number, refs: FleetRefs, stats: SqliteStats = "none"): number {
  const db = new DatabaseSync(file);
  const insert = db.prepare(
    `INSERT INTO devices (device_id, product_type_id, firmware_id, created_at, updated_at, seen_hour, version_info)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  // The insert's trigger makes the device's device_seen row; the exact time is set beside it.
  const seenAt = db.prepare("UPDATE device_seen SET last_logged_in = ? WHERE device_id = ?");
  const t0 = Date.now();
  db.exec("BEGIN");
  for (let i = 0; i < n; i++) {
    const [id, productType, firmware, created, updated, seen, info] = deviceRow(i, t0, refs);
    insert.run(id, productType, firmware, created, updated, hourOf(seen), info);
    seenAt.run(seen, id);
  }
  db.exec("COMMIT");
  if (stats === "analyze") db.exec("ANALYZE");
  if (stats === "optimize") db.exec("PRAGMA optimize=0x10002");
  const kept = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'sqlite_stat1'").get()!.n
    ? Number(db.prepare("SELECT count(*) AS n FROM sqlite_stat1").get()!.n)
    : 0;
  db.close();
  return kept;
}

export async function seedFleetPostgres(url: string, n: number, refs: FleetRefs): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // No autovacuum either: it would set the visibility map after the seeding's inserts at a moment of its choosing,
    // and the bench would measure that moment (see below).
    await sql`ALTER TABLE devices SET (autovacuum_enabled = false)`;
    await sql`ALTER TABLE device_seen SET (autovacuum_enabled = false)`;
    const t0 = Date.now();
    // The trigger that makes each device's device_seen row is off: the rows are made with their times beside.
    await sql`ALTER TABLE devices DISABLE TRIGGER devices_seen_inserted`;
    try {
      for (let from = 0; from < n; from += 5000) {
        const made: ReturnType<typeof postgresRow>[] = [];
        for (let i = from; i < Math.min(n, from + 5000); i++) made.push(postgresRow(i, t0, refs));
        await sql`INSERT INTO devices ${
          sql(
            made.map((m) => m.row),
            "device_id",
            "product_type_id",
            "firmware_id",
            "created_at",
            "updated_at",
            "seen_hour",
            "version_info",
          )
        }`;
        // Without the foreign key's check per row (each locks its devices row); the rows are made from devices.
        await sql.begin(async (tx) => {
          await tx`SET LOCAL session_replication_role = replica`;
          await tx`INSERT INTO device_seen (device_id, last_logged_in, product_type_id, firmware_key, firmware_id, app, os)
            SELECT d.device_id, v.last_logged_in::text, d.product_type_id, d.firmware_key, d.firmware_id, d.app, d.os
            FROM unnest(${made.map((m) => m.seen.device_id)}::text[], ${
            made.map((m) => m.seen.last_logged_in)
          }::text[]) AS v(device_id, last_logged_in)
            JOIN devices d ON d.device_id = v.device_id`;
        });
      }
    } finally {
      await sql`ALTER TABLE devices ENABLE TRIGGER devices_seen_inserted`;
    }
    // Statistics only, no VACUUM: a live fleet's devices check in all the time and each check-in clears its page's
    // all-visible bit, so the bench measures the table as a running console has it (no index-only shortcut from the
    // visibility map), not the freshly vacuumed state no deployment keeps.
    await sql`ANALYZE devices`;
    await sql`ANALYZE device_seen`;
  } finally {
    await sql.end();
  }
}
