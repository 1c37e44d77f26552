/**
 * The bench's direct SQLite work: a fixture (devices written straight into a fresh console database) and the bare
 * baselines the console is measured against (raw prepared inserts of an import file, rows serialized in-process).
 */
import { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../server/db/sqlite/open.ts";
import {
  TREATMENT_CONTENT_JOIN,
  TREATMENT_ROW_COLUMNS,
  treatmentFromRow,
  type TreatmentRow,
} from "../server/db/rules/treatment_rows.ts";
import { IMPORT_SCHEMA } from "./import_db.ts";

/** Writes n devices straight into a fresh console database (a fixture, not the code under test). */
export function seedDevices(dataDir: string, n: number): void {
  const db = openDatabase(`${dataDir}/console.sqlite3`);
  const insert = db.prepare(
    "INSERT INTO devices (device_id, created_at, updated_at, seen_hour, version_info) VALUES (?, ?, ?, ?, ?)",
  );
  // The insert's trigger makes the device's device_seen row; the exact time is set beside it.
  const seen = db.prepare("UPDATE device_seen SET last_logged_in = ? WHERE device_id = ?");
  const t = new Date().toISOString();
  const info = JSON.stringify({ app: "2.4.1", os: "5.10.0", channels: ["1.2", "1.2", "1.3", "1.3"] });
  db.exec("BEGIN");
  for (let i = 0; i < n; i++) {
    const id = `DEV-${String(i).padStart(6, "0")}`;
    insert.run(id, t, t, t.slice(0, 13), info);
    seen.run(t, id);
  }
  db.exec("COMMIT");
  db.close();
}

/**
 * Import-file rows for n treatments × phases × channels, inserted with raw prepared statements (a timed baseline,
 * so not through makeImportDb; only the schema is shared).
 */
export function writeImportFile(path: string, n: number, phases: number, channels: number): number {
  const db = new DatabaseSync(path);
  db.exec(IMPORT_SCHEMA);
  const t = performance.now();
  const insT = db.prepare("INSERT INTO treatments (id, name, category, use) VALUES (?, ?, ?, ?)");
  const insP = db.prepare("INSERT INTO phases (id, treatment_id, position, duration) VALUES (?, ?, ?, ?)");
  const insC = db.prepare(
    "INSERT INTO channels (id, phase_id, position, current, frequency, polarity, rise_time, hold_time, fall_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  let pid = 0, cid = 0;
  db.exec("BEGIN");
  for (let i = 1; i <= n; i++) {
    insT.run(i, `Treatment ${String(i).padStart(6, "0")}`, ["Pain", "Recovery", "Muscle"][i % 3], "Bench data");
    for (let p = 0; p < phases; p++) {
      insP.run(++pid, i, p, 60 + p);
      for (let c = 0; c < channels; c++) {
        insC.run(++cid, pid, c, 10 + c, 80 + p, c % 2 ? "negative" : "positive", 500, 4000, 500);
      }
    }
  }
  db.exec("COMMIT");
  const ms = performance.now() - t;
  db.close();
  return ms;
}

/** The console's treatments read and serialized directly in this process: the baseline of GET treatments. */
export function directTreatmentSerializer(dataDir: string): { serialize: () => number; close: () => void } {
  const db = new DatabaseSync(`${dataDir}/console.sqlite3`, { readOnly: true });
  const stmt = db.prepare(
    `SELECT ${TREATMENT_ROW_COLUMNS} FROM treatments t ${TREATMENT_CONTENT_JOIN} ORDER BY t.name`,
  );
  return {
    serialize: () => JSON.stringify((stmt.all() as unknown as TreatmentRow[]).map(treatmentFromRow)).length,
    close: () => db.close(),
  };
}
