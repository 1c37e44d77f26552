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

/** Error codes of CONTRACT §2 (plus the import and login specific ones). */
export type ErrorCode =
  | "invalid_request"
  | "invalid_credentials"
  | "unauthorized"
  | "not_found"
  | "conflict"
  | "precondition_failed"
  | "too_large"
  | "unsupported_media_type"
  | "too_many_requests"
  | "import_failed"
  | "invalid_firmware"
  | "range_not_satisfiable"
  | "unavailable"
  | "internal";

/** A trimmed, non-empty display name. */
/** True when a string holds a control character (U+0000–U+001F, U+007F): SQLite reads text only up to a NUL. */
export function hasControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export const Name = z.string().trim().min(1, "must not be empty").max(200, "is at most 200 characters")
  .refine((s) => s.isWellFormed(), "must be well-formed Unicode (no lone surrogates)")
  .refine((s) => !hasControlChars(s), "must not contain control characters");

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
