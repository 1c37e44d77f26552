/** Direct writes into a console database on PostgreSQL, for the bench (the SQLite counterpart: sqlite_bench.ts). */
import postgres from "postgres";

/**
 * Adds devices DEV-<from> … DEV-<to - 1> (ids as seedDevices() makes them for SQLite) in one statement; the triggers
 * move the change counter and the device count as for any write.
 */
export async function seedPostgresDevices(url: string, from: number, to: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const t = new Date().toISOString();
    const info = JSON.stringify({ app: "2.4.1", os: "5.10.0", channels: ["1.2", "1.2", "1.3", "1.3"] });
    // The devices added here: those without their device_seen row yet.
    const ids = sql`NOT EXISTS (SELECT 1 FROM device_seen s WHERE s.device_id = d.device_id)`;
    await withSeenRows(sql, t, ids, async () => {
      await sql`INSERT INTO devices (device_id, created_at, updated_at, seen_hour, version_info)
        SELECT 'DEV-' || lpad(i::text, 6, '0'), ${t}, ${t}, ${t.slice(0, 13)}, ${info}
        FROM generate_series(${from}::int, ${to - 1}::int) i`;
    });
    await sql`VACUUM ANALYZE devices`;
    await sql`VACUUM ANALYZE device_seen`;
  } finally {
    await sql.end();
  }
}

/**
 * Runs `insert` (devices, each seen at `at`: its seen_hour set) with the trigger that makes their device_seen rows off,
 * then makes the rows of the devices `where` names, seen at `at`, in one statement (one pass instead of an insert and
 * a million updates), without the foreign key's check per row (each would lock its devices row: minutes for a
 * million; the rows are made from devices, so they hold).
 */
export async function withSeenRows(
  sql: postgres.Sql,
  at: string,
  where: postgres.PendingQuery<postgres.Row[]>,
  insert: () => Promise<void>,
): Promise<void> {
  await sql`ALTER TABLE devices DISABLE TRIGGER devices_seen_inserted`;
  try {
    await insert();
  } finally {
    await sql`ALTER TABLE devices ENABLE TRIGGER devices_seen_inserted`;
  }
  await sql.begin(async (tx) => {
    await tx`SET LOCAL session_replication_role = replica`;
    await tx`INSERT INTO device_seen (device_id, last_logged_in, product_type_id, firmware_key, firmware_id, app, os)
      SELECT d.device_id, ${at}, d.product_type_id, d.firmware_key, d.firmware_id, d.app, d.os FROM devices d
      WHERE ${where}`;
  });
}

/** The version info every device of seedPolledFleet() reports (stored as the check-in stores it). */
export const POLLED_VERSION = { app: "2.4.1", os: "5.10.0", channels: ["1.2", "1.2"] };

/** Device i's id and token in seedPolledFleet(): `FLEET-<i>` (7 digits) and `tdd_<secret>_<i>`. */
export const polledDeviceId = (i: number) => `FLEET-${String(i).padStart(7, "0")}`;
export const polledDeviceToken = (secret: string, i: number) => `tdd_${secret}_${i}`;

/**
 * n registered devices for DEVICE_AUTH=token in one statement: accepted, each with its own token (stored as its sha256,
 * as enrolment stores it, computed by PostgreSQL), seen before and holding POLLED_VERSION, so each poll of theirs is
 * one that changes nothing. `secret` makes the tokens of one run unguessable from another.
 */
export async function seedPolledFleet(url: string, n: number, secret: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const t = new Date().toISOString();
    const info = JSON.stringify(POLLED_VERSION);
    await withSeenRows(sql, t, sql`d.device_id LIKE 'FLEET-%'`, async () => {
      await sql`INSERT INTO devices (device_id, created_at, updated_at, seen_hour, version_info, admission,
          token_hash, credentials_issued_at)
        SELECT 'FLEET-' || lpad(i::text, 7, '0'), ${t}, ${t}, ${t.slice(0, 13)}, ${info}, 'accepted',
          encode(sha256(convert_to(${`tdd_${secret}_`} || i::text, 'UTF8')), 'hex'), ${t}
        FROM generate_series(0, ${n - 1}::int) i`;
    });
    await sql`VACUUM ANALYZE devices`;
    await sql`VACUUM ANALYZE device_seen`;
  } finally {
    await sql.end();
  }
}
