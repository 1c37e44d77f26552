/**
 * Reads and validates every row of a treatment import file (CONTRACT §7) with a few ordered queries, grouping in
 * memory. The first problem throws `400 import_failed` naming "<table> row <id>: <problem>".
 */
import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { hasControlChars } from "../../shared/schemas/common.ts";
import type { Phase } from "../../shared/schemas/treatment.ts";
import type { ImportedTreatment } from "../db/types/treatments.ts";
import { IMAGE_SIGNATURES, IMPORT_LIMITS as LIMITS } from "./limits.ts";
import { asImportError, IMPORT_COLUMNS, importFailed, type ImportTable, openImportFile } from "./open_import_file.ts";

type Row = SQLOutputValue[];

/** Opens, vets and reads an import file; always closes it. */
export function readImportFile(path: string): ImportedTreatment[] {
  const { db, hasImages } = openImportFile(path);
  try {
    return readTreatments(db, hasImages);
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

/**
 * Rows of one table as arrays ordered by (owner column, position, id). Files are normally written in that order,
 * so rows are read in stored order (no sort) and re-read with ORDER BY only when they are not.
 * An integer beyond 2^53 is reported with its row.
 */
function rows(db: DatabaseSync, table: ImportTable, owner?: "treatment_id" | "phase_id"): Row[] {
  const columns = IMPORT_COLUMNS[table];
  const select = `SELECT ${columns.join(", ")} FROM ${table}`;
  const read = (order?: string) => {
    const stmt = db.prepare(order ? `${select} ORDER BY ${order}` : select);
    (stmt as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true); // in node:sqlite, not its types
    return stmt.all() as unknown as Row[];
  };
  try {
    if (!owner) return read("id");
    const stored = read();
    return isOrdered(stored) ? stored : read(`${owner}, position, id`);
  } catch (err) {
    if ((err as { code?: string }).code !== "ERR_OUT_OF_RANGE") throw err;
    const huge = columns.map((c) => `(typeof(${c}) = 'integer' AND abs(${c}) > 9007199254740991)`).join(" OR ");
    const found = db.prepare(
      `SELECT ${columns.map((c) => `CAST(${c} AS TEXT) AS ${c}`).join(", ")} FROM ${table} WHERE ${huge} LIMIT 1`,
    ).get() as Record<string, string> | undefined;
    if (!found) throw err;
    const column = columns.find((c) => found[c] !== null && Math.abs(Number(found[c])) > Number.MAX_SAFE_INTEGER);
    throw importFailed(`${table} row ${found.id}: ${column} ${found[column ?? "id"]} is too large.`);
  }
}

/** True when rows [id, owner, position, ...] hold numbers ordered by (owner, position, id). */
function isOrdered(list: Row[]): boolean {
  let owner = -Infinity, pos = -Infinity, id = -Infinity;
  for (let k = 0; k < list.length; k++) {
    const i = list[k][0], o = list[k][1], p = list[k][2];
    if (typeof i !== "number" || typeof o !== "number" || typeof p !== "number") return false;
    if (o < owner || (o === owner && (p < pos || (p === pos && i <= id)))) return false;
    owner = o, pos = p, id = i;
  }
  return true;
}

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

/** Trimmed text, or null for NULL/blank when optional. */
function text(table: ImportTable, id: number, column: string, v: SQLOutputValue, max: number, optional: boolean) {
  if (v === null && optional) return null;
  if (typeof v !== "string") fail(table, id, `${column} must be text (got ${describe(v)})`);
  const t = v.trim();
  if (!t) {
    if (optional) return null;
    fail(table, id, `${column} must not be blank`);
  }
  if (t.length > max) fail(table, id, `${column} is longer than ${max} characters`);
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

function reference(table: ImportTable, id: number, column: string, v: SQLOutputValue, known: Map<number, unknown>) {
  if (typeof v !== "number" || !known.has(v)) fail(table, id, `${column} ${describe(v)} does not exist`);
  return v;
}

function readTreatments(db: DatabaseSync, hasImages: boolean): ImportedTreatment[] {
  for (const table of ["treatments", "phases", "channels", ...(hasImages ? ["images"] as const : [])] as const) {
    const count = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    if (count > LIMITS[table]) {
      throw importFailed(`${table}: the file holds ${count} rows; at most ${LIMITS[table]} can be imported at once.`);
    }
  }

  const byId = new Map<number, ImportedTreatment>();
  const phaseLists = new Map<number, Phase[]>();
  const byName = new Map<string, number>();
  for (const [rawId, name, category, use] of rows(db, "treatments")) {
    const id = rowId("treatments", rawId);
    if (byId.has(id)) fail("treatments", id, "id is used twice");
    const n = text("treatments", id, "name", name, LIMITS.nameLength, false)!;
    if (hasControlChars(n)) fail("treatments", id, "name must not contain control characters");
    const other = byName.get(n);
    if (other !== undefined) fail("treatments", id, `name ${describe(n)} is also used by treatments row ${other}`);
    byName.set(n, id);
    byId.set(id, {
      name: n,
      category: text("treatments", id, "category", category, LIMITS.categoryLength, true),
      use: text("treatments", id, "use", use, LIMITS.useLength, true),
      phasesJson: "[]",
      images: [],
    });
    phaseLists.set(id, []);
  }

  const phases = new Map<number, Phase>();
  const phasePosition = uniquePositions("phases", "treatment");
  for (const [rawId, treatmentId, pos, duration] of rows(db, "phases", "treatment_id")) {
    const id = rowId("phases", rawId);
    if (phases.has(id)) fail("phases", id, "id is used twice");
    const owner = reference("phases", id, "treatment_id", treatmentId, byId);
    phasePosition(id, owner, position("phases", id, pos));
    const list = phaseLists.get(owner)!;
    if (list.length >= LIMITS.phasesPerTreatment) {
      fail("phases", id, `treatment ${owner} has more than ${LIMITS.phasesPerTreatment} phases`);
    }
    const phase: Phase = { duration: amount("phases", id, "duration", duration), channels: [] };
    list.push(phase);
    phases.set(id, phase);
  }

  // The hot loop (400,000 rows for 10,000 treatments): indexed access, no per-row allocation but the Channel.
  // Channel ids only name rows in messages, so they need no uniqueness check.
  const channelPosition = uniquePositions("channels", "phase");
  const channelRows = rows(db, "channels", "phase_id");
  for (let i = 0; i < channelRows.length; i++) {
    const r = channelRows[i];
    const id = rowId("channels", r[0]);
    const owner = reference("channels", id, "phase_id", r[1], phases);
    channelPosition(id, owner, position("channels", id, r[2]));
    const phase = phases.get(owner)!;
    if (phase.channels.length >= LIMITS.channelsPerPhase) {
      fail("channels", id, `phase ${owner} has more than ${LIMITS.channelsPerPhase} channels`);
    }
    phase.channels.push({
      current: amount("channels", id, "current", r[3]),
      frequency: amount("channels", id, "frequency", r[4]),
      polarity: text("channels", id, "polarity", r[5], LIMITS.polarityLength, false)!,
      riseTime: amount("channels", id, "rise_time", r[6]),
      holdTime: amount("channels", id, "hold_time", r[7]),
      fallTime: amount("channels", id, "fall_time", r[8]),
    });
  }

  for (const [id, list] of phaseLists) byId.get(id)!.phasesJson = JSON.stringify(list);
  if (hasImages) readImages(db, byId);
  return [...byId.values()];
}

function readImages(db: DatabaseSync, byId: Map<number, ImportedTreatment>): void {
  const imagePosition = uniquePositions("images", "treatment");
  for (const [rawId, treatmentId, pos, mime, data] of rows(db, "images", "treatment_id")) {
    const id = rowId("images", rawId);
    const owner = reference("images", id, "treatment_id", treatmentId, byId);
    imagePosition(id, owner, position("images", id, pos));
    const mimeType = typeof mime === "string" ? mime.trim().toLowerCase() : null;
    const matches = mimeType !== null && Object.hasOwn(IMAGE_SIGNATURES, mimeType) ? IMAGE_SIGNATURES[mimeType] : null;
    if (!matches) {
      fail("images", id, `mime_type ${describe(mime)} is not one of ${Object.keys(IMAGE_SIGNATURES).join(", ")}`);
    }
    if (!(data instanceof Uint8Array) || data.length === 0) fail("images", id, `data must be a non-empty BLOB`);
    if (data.length > LIMITS.imageBytes) fail("images", id, `data is larger than ${LIMITS.imageBytes} bytes`);
    if (!matches(data)) fail("images", id, `data is not ${mimeType} data (its signature does not match)`);
    const treatment = byId.get(owner)!;
    if (treatment.images.length >= LIMITS.imagesPerTreatment) {
      fail("images", id, `treatment ${owner} has more than ${LIMITS.imagesPerTreatment} images`);
    }
    treatment.images.push({ mimeType: mimeType!, data });
  }
}
