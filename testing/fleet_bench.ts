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

export function seedFleetSqlite(file: string, n: number, refs: FleetRefs): void {
  const db = new DatabaseSync(file);
  const insert = db.prepare(
    `INSERT INTO devices (device_id, product_type_id, firmware_id, created_at, updated_at, last_logged_in, version_info)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const t0 = Date.now();
  db.exec("BEGIN");
  for (let i = 0; i < n; i++) insert.run(...deviceRow(i, t0, refs));
  db.exec("COMMIT");
  db.exec("ANALYZE");
  db.close();
}

export async function seedFleetPostgres(url: string, n: number, refs: FleetRefs): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // No autovacuum either: it would set the visibility map after the seeding's inserts at a moment of its choosing,
    // and the bench would measure that moment (see below).
    await sql`ALTER TABLE devices SET (autovacuum_enabled = false)`;
    const t0 = Date.now();
    for (let from = 0; from < n; from += 5000) {
      const rows = [];
      for (let i = from; i < Math.min(n, from + 5000); i++) {
        const [device_id, product_type_id, firmware_id, created_at, updated_at, last_logged_in, version_info] =
          deviceRow(i, t0, refs);
        rows.push({ device_id, product_type_id, firmware_id, created_at, updated_at, last_logged_in, version_info });
      }
      await sql`INSERT INTO devices ${
        sql(
          rows,
          "device_id",
          "product_type_id",
          "firmware_id",
          "created_at",
          "updated_at",
          "last_logged_in",
          "version_info",
        )
      }`;
    }
    // Statistics only, no VACUUM: a live fleet's devices check in all the time and each check-in clears its page's
    // all-visible bit, so the bench measures the table as a running console has it (no index-only shortcut from the
    // visibility map), not the freshly vacuumed state no deployment keeps.
    await sql`ANALYZE devices`;
  } finally {
    await sql.end();
  }
}
