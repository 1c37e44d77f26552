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
    await sql`INSERT INTO devices (device_id, created_at, updated_at, last_logged_in, version_info)
      SELECT 'DEV-' || lpad(i::text, 6, '0'), ${t}, ${t}, ${t}, ${info} FROM generate_series(${from}::int, ${
      to - 1
    }::int) i`;
    await sql`VACUUM ANALYZE devices`;
  } finally {
    await sql.end();
  }
}
