/**
 * Reads and validates every row of a treatment import file (docs/DECISIONS.md, "Treatment import"), a batch of rows at
 * a time, and serializes what the store will write: the small values as they are, every treatment's phases as JSON in
 * one buffer. The first problem throws `400 import_failed` naming "<table> row <id>: <problem>".
 * A file at the limits takes seconds of CPU: the server runs this in a worker (read_off_thread.ts).
 */
import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { nameProblem } from "../../shared/schemas/common.ts";
import { IMAGE_SIGNATURES, IMPORT_LIMITS as LIMITS } from "./limits.ts";
import {
  asImportError,
  IMPORT_COLUMNS,
  importFailed,
  type ImportTable,
  openImportFile,
  type RowidColumns,
} from "./open_import_file.ts";
import { allRows, eachRowInOrder, returnArrays } from "./ordered_rows.ts";
import { PhasesJsonWriter, type PhaseTable } from "./phases_json.ts";

/** An import file read and validated. */
export interface ParsedImport {
  names: string[];
  categories: (string | null)[];
  uses: (string | null)[];
  /** UTF-8 JSON text: treatment i's Phase[] is bytes [starts[i], ends[i]). */
  phases: ArrayBuffer;
  starts: Float64Array;
  ends: Float64Array;
  /** In each treatment's order. */
  images: { treatment: number; mimeType: string; data: Uint8Array }[];
}

/** Opens, vets and reads an import file; always closes it. */
export function readImportFile(path: string): ParsedImport {
  const { db, hasImages, rowids } = openImportFile(path);
  try {
    return readTreatments(db, hasImages, rowids);
  } catch (err) {
    throw asImportError(err);
  } finally {
    db.close();
  }
}

function describe(v: SQLOutputValue): string {
  if (v === null) return "NULL";
  if (v instanceof Uint8Array) return "a blob";
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return String(v);
}

function fail(table: ImportTable, id: SQLOutputValue, problem: string): never {
  throw importFailed(`${table} row ${describe(id)}: ${problem}.`);
}

/** An integer beyond 2^53 cannot be read as a number: the first such value is reported with its row. */
function refuseHugeIntegers(db: DatabaseSync, table: ImportTable): void {
  const columns = IMPORT_COLUMNS[table];
  const huge = columns.map((c) => `(typeof(${c}) = 'integer' AND abs(${c}) > 9007199254740991)`).join(" OR ");
  const found = db.prepare(
    `SELECT ${columns.map((c) => `CAST(${c} AS TEXT) AS ${c}`).join(", ")} FROM ${table} WHERE ${huge} LIMIT 1`,
  ).get() as Record<string, string> | undefined;
  if (!found) return;
  const column = columns.find((c) => found[c] !== null && Math.abs(Number(found[c])) > Number.MAX_SAFE_INTEGER);
  throw importFailed(`${table} row ${found.id}: ${column} ${found[column ?? "id"]} is too large.`);
}

/** SQL: whether a text column holds a NUL (node:sqlite, like SQLite's own text functions, stops reading at it). */
const hasNul = (column: string) => `coalesce(instr(${column}, char(0)), 0) > 0`;

function rowId(table: ImportTable, v: SQLOutputValue): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) fail(table, v, "id must be an integer");
  return v;
}

/** A finite number not below 0 (NULL, text, blobs, NaN stored as NULL and ±Infinity are refused). */
function amount(table: ImportTable, id: number, column: string, v: SQLOutputValue): number {
  if (typeof v !== "number") fail(table, id, `${column} must be a number (got ${describe(v)})`);
  if (!Number.isFinite(v)) fail(table, id, `${column} must be a finite number (got ${describe(v)})`);
  if (v < 0) fail(table, id, `${column} must not be negative (got ${describe(v)})`);
  return v === 0 ? 0 : v; // no -0
}

function position(table: ImportTable, id: number, v: SQLOutputValue): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    fail(table, id, `position must be a whole number not below 0 (got ${describe(v)})`);
  }
  return v;
}

/** How text is checked: "name" applies the rule for names; "text" only refuses a NUL, which would cut it short. */
type TextRule = "name" | "text";

/** Trimmed text, or null for NULL/blank when optional. `nul`: the value holds a NUL (read only up to it). */
function text(
  table: ImportTable,
  id: number,
  column: string,
  v: SQLOutputValue,
  nul: SQLOutputValue,
  rule: TextRule,
  max: number,
  optional: boolean,
): string | null {
  if (v === null && optional) return null;
  if (typeof v !== "string") fail(table, id, `${column} must be text (got ${describe(v)})`);
  if (nul) fail(table, id, `${column} ${rule === "name" ? nameProblem("\0") : "must not contain NUL characters"}`);
  const t = v.trim();
  if (!t) {
    if (optional) return null;
    fail(table, id, `${column} must not be blank`);
  }
  if (t.length > max) fail(table, id, `${column} is longer than ${max} characters`);
  const problem = rule === "name" ? nameProblem(t) : null;
  if (problem) fail(table, id, `${column} ${problem}`);
  return t;
}

/** Refuses a position used twice by one owner; rows come ordered by (owner, position). */
function uniquePositions(table: ImportTable, ownerWord: "treatment" | "phase") {
  let lastOwner = NaN, lastPosition = NaN;
  return (id: number, owner: number, p: number) => {
    if (owner === lastOwner && p === lastPosition) {
      fail(table, id, `position ${p} is used twice in ${ownerWord} ${owner}`);
    }
    lastOwner = owner, lastPosition = p;
  };
}

function reference(
  table: ImportTable,
  id: number,
  column: string,
  v: SQLOutputValue,
  known: { has(key: number): boolean },
): number {
  if (typeof v !== "number" || !known.has(v)) fail(table, id, `${column} ${describe(v)} does not exist`);
  return v;
}

function readTreatments(db: DatabaseSync, hasImages: boolean, rowids: RowidColumns): ParsedImport {
  const counts: Record<string, number> = {};
  for (const table of ["treatments", "phases", "channels", ...(hasImages ? ["images"] as const : [])] as const) {
    const count = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    if (count > LIMITS[table]) {
      throw importFailed(`${table}: the file holds ${count} rows; at most ${LIMITS[table]} can be imported at once.`);
    }
    counts[table] = count;
  }

  // Treatments (at most 100,000): read whole, by id.
  refuseHugeIntegers(db, "treatments");
  const index = new Map<number, number>();
  const names: string[] = [], categories: (string | null)[] = [], uses: (string | null)[] = [];
  const byName = new Map<string, number>();
  const treatmentRows = allRows(returnArrays(
    db.prepare(
      `SELECT id, name, category, use, ${hasNul("name")}, ${hasNul("category")}, ${hasNul("use")}
       FROM treatments ORDER BY id`,
    ),
  ));
  for (const [rawId, name, category, use, nulName, nulCategory, nulUse] of treatmentRows) {
    const id = rowId("treatments", rawId);
    if (index.has(id)) fail("treatments", id, "id is used twice");
    const n = text("treatments", id, "name", name, nulName, "name", LIMITS.nameLength, false)!;
    const other = byName.get(n);
    if (other !== undefined) fail("treatments", id, `name ${describe(n)} is also used by treatments row ${other}`);
    byName.set(n, id);
    index.set(id, names.length);
    names.push(n);
    categories.push(text("treatments", id, "category", category, nulCategory, "name", LIMITS.categoryLength, true));
    uses.push(text("treatments", id, "use", use, nulUse, "text", LIMITS.useLength, true));
  }
  byName.clear();

  const phases = readPhases(db, counts.phases, index, rowids.phases);
  const json = readChannels(db, phases, rowids.channels);
  const images = hasImages ? readImages(db, index, rowids.images!) : [];
  return { names, categories, uses, phases: json.bytes, starts: json.starts, ends: json.ends, images };
}

/** Phases (at most 500,000) as typed arrays, indexed in (treatment, position) order; ids to indices in `index`. */
function readPhases(db: DatabaseSync, count: number, treatments: Map<number, number>, rowid: string) {
  refuseHugeIntegers(db, "phases");
  const table: PhaseTable & { index: Map<number, number> } = {
    ids: new Float64Array(count),
    durations: new Float64Array(count),
    treatmentOf: new Int32Array(count),
    firstPhase: new Int32Array(treatments.size),
    phaseCount: new Int32Array(treatments.size),
    index: new Map(),
  };
  eachRowInOrder(db, "phases", rowid, "treatment_id", IMPORT_COLUMNS.phases, () => {
    table.index.clear();
    table.phaseCount.fill(0);
    const phasePosition = uniquePositions("phases", "treatment");
    let k = 0;
    return ([, rawId, treatmentId, pos, duration]) => {
      const id = rowId("phases", rawId);
      if (table.index.has(id)) fail("phases", id, "id is used twice");
      const owner = reference("phases", id, "treatment_id", treatmentId, treatments);
      phasePosition(id, owner, position("phases", id, pos));
      const t = treatments.get(owner)!;
      if (table.phaseCount[t] >= LIMITS.phasesPerTreatment) {
        fail("phases", id, `treatment ${owner} has more than ${LIMITS.phasesPerTreatment} phases`);
      }
      table.durations[k] = amount("phases", id, "duration", duration);
      if (table.phaseCount[t]++ === 0) table.firstPhase[t] = k;
      table.ids[k] = id;
      table.treatmentOf[k] = t;
      table.index.set(id, k++);
    };
  });
  return table;
}

/**
 * The hot loop (2,000,000 rows at the limits): each channel is checked and written as JSON into its phase, no object
 * kept per row. Channel ids only name rows in messages, so they need no uniqueness check.
 */
function readChannels(db: DatabaseSync, phases: PhaseTable & { index: Map<number, number> }, rowid: string) {
  refuseHugeIntegers(db, "channels");
  let writer!: PhasesJsonWriter;
  eachRowInOrder(db, "channels", rowid, "phase_id", [...IMPORT_COLUMNS.channels, hasNul("polarity")], () => {
    writer = new PhasesJsonWriter(phases);
    const channelPosition = uniquePositions("channels", "phase");
    const perPhase = new Uint8Array(phases.ids.length);
    return (r) => {
      const id = rowId("channels", r[1]);
      const owner = reference("channels", id, "phase_id", r[2], phases.index);
      channelPosition(id, owner, position("channels", id, r[3]));
      const k = phases.index.get(owner)!;
      if (perPhase[k] >= LIMITS.channelsPerPhase) {
        fail("channels", id, `phase ${owner} has more than ${LIMITS.channelsPerPhase} channels`);
      }
      perPhase[k]++;
      const current = amount("channels", id, "current", r[4]);
      const frequency = amount("channels", id, "frequency", r[5]);
      const polarity = text("channels", id, "polarity", r[6], r[10], "text", LIMITS.polarityLength, false)!;
      const riseTime = amount("channels", id, "rise_time", r[7]);
      const holdTime = amount("channels", id, "hold_time", r[8]);
      const fallTime = amount("channels", id, "fall_time", r[9]);
      writer.channel(
        k,
        `{"current":${current},"frequency":${frequency},"polarity":${
          JSON.stringify(polarity)
        },"riseTime":${riseTime},"holdTime":${holdTime},"fallTime":${fallTime}}`,
      );
    };
  });
  return writer.finish();
}

function readImages(db: DatabaseSync, treatments: Map<number, number>, rowid: string): ParsedImport["images"] {
  refuseHugeIntegers(db, "images");
  const images: ParsedImport["images"] = [];
  eachRowInOrder(db, "images", rowid, "treatment_id", IMPORT_COLUMNS.images, () => {
    images.length = 0;
    const imagePosition = uniquePositions("images", "treatment");
    const perTreatment = new Uint8Array(treatments.size);
    return ([, rawId, treatmentId, pos, mime, data]) => {
      const id = rowId("images", rawId);
      const owner = reference("images", id, "treatment_id", treatmentId, treatments);
      imagePosition(id, owner, position("images", id, pos));
      const mimeType = typeof mime === "string" ? mime.trim().toLowerCase() : null;
      const matches = mimeType !== null && Object.hasOwn(IMAGE_SIGNATURES, mimeType)
        ? IMAGE_SIGNATURES[mimeType]
        : null;
      if (!matches) {
        fail("images", id, `mime_type ${describe(mime)} is not one of ${Object.keys(IMAGE_SIGNATURES).join(", ")}`);
      }
      if (!(data instanceof Uint8Array) || data.length === 0) fail("images", id, `data must be a non-empty BLOB`);
      if (data.length > LIMITS.imageBytes) fail("images", id, `data is larger than ${LIMITS.imageBytes} bytes`);
      if (!matches(data)) fail("images", id, `data is not ${mimeType} data (its signature does not match)`);
      const t = treatments.get(owner)!;
      if (perTreatment[t] >= LIMITS.imagesPerTreatment) {
        fail("images", id, `treatment ${owner} has more than ${LIMITS.imagesPerTreatment} images`);
      }
      perTreatment[t]++;
      images.push({ treatment: t, mimeType: mimeType!, data });
    };
  });
  return images;
}
