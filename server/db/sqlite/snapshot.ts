/**
 * A consistent online copy of the SQLite database (the backup task): every page in one step, checked, switched to a
 * self-contained file, with the counts and firmware rows the backup's manifest records.
 */
import { backup, DatabaseSync } from "node:sqlite";

export interface DatabaseSnapshot {
  format: 1;
  schemaVersion: number;
  counts: { operators: number; productTypes: number; treatments: number; devices: number; firmwares: number };
  firmwares: FirmwareRow[];
}

export interface FirmwareRow {
  id: string;
  name: string;
  size: number;
  sha256: string;
}

export async function snapshotDatabase(
  source: string,
  target: string,
): Promise<DatabaseSnapshot> {
  const src = new DatabaseSync(source, { readOnly: true, timeout: 10_000 });
  try {
    // rate -1: every page in a single step, so the copy is one consistent snapshot.
    await backup(src, target, { rate: -1 });
  } finally {
    src.close();
  }
  const copy = new DatabaseSync(target, { timeout: 10_000 });
  try {
    copy.exec("PRAGMA journal_mode = DELETE"); // one self-contained file, no -wal beside it
    const check = copy.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    if (check.length !== 1 || check[0].integrity_check !== "ok") {
      throw new Error(
        `the database copy failed its integrity check: ${check.map((r) => r.integrity_check).join("; ")}`,
      );
    }
    const schemaVersion = (copy.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    const count = (table: string) => (copy.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const counts = {
      operators: count("operators"),
      productTypes: count("product_types"),
      treatments: count("treatments"),
      devices: count("devices"),
      firmwares: count("firmwares"),
    };
    const firmwares = copy.prepare("SELECT id, name, size, sha256 FROM firmwares ORDER BY created_at")
      .all() as unknown as FirmwareRow[];
    return { format: 1, schemaVersion, counts, firmwares };
  } finally {
    copy.close();
  }
}
