/**
 * Treatment import files (the SQLite format POST treatments/import reads), for tests, benchmarks and
 * `scripts/make-import-db.ts`: `makeImportDb(path, treatments)` writes one in a single transaction with prepared
 * statements, `generateTreatments(n, opts)` makes realistic data for it, `runSql` edits one by hand (malformed files).
 */
import { rmSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { encodePng } from "../server/demo/png.ts";

export interface ImportChannel {
  current: number;
  frequency: number;
  polarity: string;
  riseTime: number;
  holdTime: number;
  fallTime: number;
}

export interface ImportPhase {
  duration: number;
  channels: ImportChannel[];
}

export interface ImportImage {
  mimeType: string;
  data: Uint8Array;
}

export interface ImportTreatment {
  name: string;
  category?: string | null;
  use?: string | null;
  phases: ImportPhase[];
  images?: ImportImage[];
}

/** The schema of an import file, verbatim. */
export const IMPORT_SCHEMA = `
CREATE TABLE treatments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT, use TEXT);
CREATE TABLE phases     (id INTEGER PRIMARY KEY, treatment_id INTEGER NOT NULL, position INTEGER NOT NULL,
                         duration REAL NOT NULL);
CREATE TABLE channels   (id INTEGER PRIMARY KEY, phase_id INTEGER NOT NULL, position INTEGER NOT NULL,
                         current REAL NOT NULL, frequency REAL NOT NULL, polarity TEXT NOT NULL,
                         rise_time REAL NOT NULL, hold_time REAL NOT NULL, fall_time REAL NOT NULL);
CREATE TABLE images     (id INTEGER PRIMARY KEY, treatment_id INTEGER NOT NULL, position INTEGER NOT NULL,
                         mime_type TEXT NOT NULL, data BLOB NOT NULL);
`;

/** Creates (replacing any existing file) an import file holding the treatments, in one transaction. */
export function makeImportDb(path: string, treatments: readonly ImportTreatment[]): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA journal_mode = OFF");
    db.exec("PRAGMA synchronous = OFF");
    db.exec(IMPORT_SCHEMA);
    const insTreatment = db.prepare("INSERT INTO treatments (id, name, category, use) VALUES (?, ?, ?, ?)");
    const insPhase = db.prepare("INSERT INTO phases (id, treatment_id, position, duration) VALUES (?, ?, ?, ?)");
    const insChannel = db.prepare(
      `INSERT INTO channels (id, phase_id, position, current, frequency, polarity, rise_time, hold_time, fall_time)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insImage = db.prepare(
      "INSERT INTO images (id, treatment_id, position, mime_type, data) VALUES (?, ?, ?, ?, ?)",
    );
    let phaseId = 0, channelId = 0, imageId = 0;
    db.exec("BEGIN");
    try {
      treatments.forEach((t, i) => {
        const treatmentId = i + 1;
        insTreatment.run(treatmentId, t.name, t.category ?? null, t.use ?? null);
        t.phases.forEach((p, pi) => {
          insPhase.run(++phaseId, treatmentId, pi, p.duration);
          p.channels.forEach((c, ci) => {
            insChannel.run(
              ++channelId,
              phaseId,
              ci,
              c.current,
              c.frequency,
              c.polarity,
              c.riseTime,
              c.holdTime,
              c.fallTime,
            );
          });
        });
        t.images?.forEach((img, ii) => insImage.run(++imageId, treatmentId, ii, img.mimeType, img.data));
      });
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  } finally {
    db.close();
  }
}

export interface GenerateOptions {
  /** Phases per treatment (default 10). */
  phases?: number;
  /** Channels per phase (default 4). */
  channels?: number;
  /** Images per treatment (default 0). */
  images?: number;
  /** Prefix of the generated names (default "Treatment"); names are `<prefix> <NNNNN> <area>`, unique. */
  namePrefix?: string;
}

const CATEGORIES = ["Pain relief", "Muscle recovery", "Rehabilitation", "Relaxation", "Strength", "Circulation"];
const AREAS = ["shoulder", "lower back", "knee", "neck", "calf", "thigh", "forearm", "abdomen"];
const USES = ["Twice a day", "Once a day after exercise", "As needed", "Three times a week", "Before sleep"];
const POLARITIES = ["biphasic", "positive", "negative", "alternating"];

/** A tiny solid-colour PNG, distinct per seed. */
function samplePng(seed: number): Uint8Array {
  const w = 8, h = 8;
  const rgb = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++) {
    rgb[i * 3] = (seed * 37) & 255;
    rgb[i * 3 + 1] = (seed * 91 + i) & 255;
    rgb[i * 3 + 2] = 134;
  }
  return encodePng(w, h, rgb);
}

/** Deterministic, realistic-looking treatments (names unique, values finite and not negative). */
export function generateTreatments(n: number, opts: GenerateOptions = {}): ImportTreatment[] {
  const phaseCount = opts.phases ?? 10, channelCount = opts.channels ?? 4, imageCount = opts.images ?? 0;
  const prefix = opts.namePrefix ?? "Treatment";
  const width = Math.max(5, String(n).length);
  const images = Array.from({ length: Math.min(imageCount, 16) }, (_, i) => samplePng(i + 1));
  const out: ImportTreatment[] = [];
  for (let i = 0; i < n; i++) {
    const area = AREAS[i % AREAS.length];
    const phases: ImportPhase[] = [];
    for (let p = 0; p < phaseCount; p++) {
      const channels: ImportChannel[] = [];
      for (let c = 0; c < channelCount; c++) {
        const k = i * 7 + p * 3 + c;
        channels.push({
          current: 5 + (k % 46) * 0.5,
          frequency: [2, 5, 10, 20, 35, 50, 80, 100, 120][k % 9],
          polarity: POLARITIES[k % POLARITIES.length],
          riseTime: 100 + (k % 10) * 50,
          holdTime: 1000 + (k % 20) * 250,
          fallTime: 100 + (k % 8) * 50,
        });
      }
      phases.push({ duration: 30 + ((i + p) % 10) * 30, channels });
    }
    out.push({
      name: `${prefix} ${String(i + 1).padStart(width, "0")} ${area}`,
      category: CATEGORIES[i % CATEGORIES.length],
      use: USES[i % USES.length],
      phases,
      images: Array.from({ length: imageCount }, (_, k) => ({
        mimeType: "image/png",
        data: images[(i + k) % images.length],
      })),
    });
  }
  return out;
}

/** A treatment import file with one phase of one channel per name; returns its path. */
export function makeNamedImportFile(path: string, names: string[]): string {
  const channel = { current: 10, frequency: 50, polarity: "+", riseTime: 1, holdTime: 2, fallTime: 3 };
  makeImportDb(
    path,
    names.map((name) => ({ name, category: "cat", use: "use", phases: [{ duration: 60, channels: [channel] }] })),
  );
  return path;
}

export { runSql } from "./sqlite_file.ts";
/** The PNG encoder of the demo's illustrations, for tests that make images of their own. */
export { encodePng };
