import * as z from "zod";

/** Opaque server-made id (`_id` of every entity but devices). */
export const Id = z.string().min(1, "must not be empty").max(128, "is too long");
export type Id = z.infer<typeof Id>;

/**
 * The entity tag of an entity's current version, exactly as its ETag header says (quotes included): send it back as
 * If-Match so a change made meanwhile by someone else is refused (412) instead of overwritten.
 */
export const Etag = z.string();
export type Etag = z.infer<typeof Etag>;

/** ISO 8601 UTC timestamp as the server writes it. */
export const Timestamp = z.string();
export type Timestamp = z.infer<typeof Timestamp>;

export const ErrorBody = z.object({ error: z.string(), msg: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Error codes of docs/REQUIREMENTS.md §2 (plus the import and login specific ones). */
export type ErrorCode =
  | "invalid_request"
  | "invalid_credentials"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "precondition_failed"
  | "too_large"
  | "unsupported_media_type"
  | "too_many_requests"
  | "import_failed"
  | "invalid_firmware"
  | "invalid_signature"
  | "invalid_password"
  | "range_not_satisfiable"
  | "length_required"
  | "request_timeout"
  | "insufficient_storage"
  | "unavailable"
  | "internal";

/** True when a string holds a control character (U+0000–U+001F, U+007F): SQLite reads text only up to a NUL. */
export function hasControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** True for C0 controls (NUL included), DEL and the C1 controls U+0080–U+009F (NEL U+0085 among them). */
function hasControls(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
const LINE_SEPARATORS = /[\u2028\u2029]/;
/** Embeddings, overrides (U+202A–U+202E) and isolates (U+2066–U+2069): they reorder how the text around them shows. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;
/**
 * Nothing a reader can see: default-ignorable code points (zero-width space and joiners, word joiner, BOM, soft
 * hyphen, direction marks, variation selectors, Hangul fillers, tags...), white space and the blank braille pattern.
 */
const INVISIBLE_ONLY = /^[\p{Default_Ignorable_Code_Point}\p{White_Space}\u2800]*$/u;

/**
 * Why a name is not text a person can read (a phrase to follow the field's name), or null when it is.
 * One rule for every name: product types and modules, firmware file names, imported treatments and categories.
 * Direction marks (U+200E, U+200F, U+061C) and zero-width characters are allowed inside a name (right-to-left and
 * joined scripts need them) but a name of nothing else is refused.
 */
export function nameProblem(s: string): string | null {
  if (!s.isWellFormed()) return "must be well-formed Unicode (no lone surrogates)";
  if (hasControls(s)) return "must not contain control characters";
  if (LINE_SEPARATORS.test(s)) return "must not contain line or paragraph separators";
  if (BIDI_CONTROLS.test(s)) return "must not contain bidirectional overrides or isolates";
  if (INVISIBLE_ONLY.test(s)) return "must not be made only of invisible characters";
  return null;
}

/** A trimmed, non-empty display name that a person can read (see nameProblem). */
export const Name = z.string().trim().min(1, "must not be empty").max(200, "is at most 200 characters")
  .superRefine((s, ctx) => {
    const problem = nameProblem(s);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** A list of ids without duplicates. */
export function uniqueIds(max: number) {
  return z.array(Id).max(max, `has more than ${max} entries`).refine(
    (ids) => new Set(ids).size === ids.length,
    "must not contain duplicates",
  );
}

/** One human sentence naming the first failing field of a zod error. */
export function describeZodError(error: z.ZodError, where = "body"): string {
  const issue = error.issues[0];
  if (!issue) return `${where} is invalid.`;
  const path = issue.path.length ? issue.path.join(".") : where;
  if (issue.code === "unrecognized_keys") {
    return `${path === where ? where : path} has unknown member(s): ${issue.keys.join(", ")}.`;
  }
  return `${path}: ${issue.message}.`;
}
