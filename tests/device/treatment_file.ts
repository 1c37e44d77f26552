import { DatabaseSync } from "node:sqlite";
import type { Phase } from "../../shared/schemas/treatment.ts";

export interface TreatmentInput {
  name: string;
  category?: string | null;
  use?: string | null;
  phases: Phase[];
}

/** Writes a treatment import file in the format of CONTRACT §7 and returns its path. */
export function writeTreatmentFile(path: string, treatments: TreatmentInput[]): string {
  const db = new DatabaseSync(path);
  db.exec(`
    CREATE TABLE treatments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT, use TEXT);
    CREATE TABLE phases (id INTEGER PRIMARY KEY, treatment_id INTEGER NOT NULL, position INTEGER NOT NULL,
                         duration REAL NOT NULL);
    CREATE TABLE channels (id INTEGER PRIMARY KEY, phase_id INTEGER NOT NULL, position INTEGER NOT NULL,
                           current REAL NOT NULL, frequency REAL NOT NULL, polarity TEXT NOT NULL,
                           rise_time REAL NOT NULL, hold_time REAL NOT NULL, fall_time REAL NOT NULL);
  `);
  const t = db.prepare("INSERT INTO treatments (name, category, use) VALUES (?, ?, ?)");
  const p = db.prepare("INSERT INTO phases (treatment_id, position, duration) VALUES (?, ?, ?)");
  const c = db.prepare(
    `INSERT INTO channels (phase_id, position, current, frequency, polarity, rise_time, hold_time, fall_time)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const tr of treatments) {
    const tid = t.run(tr.name, tr.category ?? null, tr.use ?? null).lastInsertRowid;
    tr.phases.forEach((phase, i) => {
      const pid = p.run(tid, i, phase.duration).lastInsertRowid;
      phase.channels.forEach((ch, j) => {
        c.run(pid, j, ch.current, ch.frequency, ch.polarity, ch.riseTime, ch.holdTime, ch.fallTime);
      });
    });
  }
  db.close();
  return path;
}

export const channel = (current: number, frequency = 80) => ({
  current,
  frequency,
  polarity: "biphasic symmetric",
  riseTime: 500,
  holdTime: 5000,
  fallTime: 500,
});
