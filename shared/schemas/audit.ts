/**
 * The audit trail (docs/REQUIREMENTS.md §12): one entry per change and per security event, appended in the transaction of the
 * change, hash-chained (docs/DECISIONS.md, "Audit trail").
 */
import * as z from "zod";
import { hasControlChars, Id, Timestamp } from "./common.ts";

/**
 * Every action the trail knows, in one place: a feature that records a new kind of change adds its name here (the
 * append functions accept only these names). `<entity>.<verb>`, lower case with underscores.
 */
export const AUDIT_ACTIONS = [
  // Sign-in and passwords
  "auth.sign_in",
  "auth.sign_in_failed",
  "auth.password_change",
  // Operator management
  "operator.create",
  "operator.update",
  "operator.reset_password",
  // API tokens
  "api_token.create",
  "api_token.revoke",
  // Saved views: only an admin deleting a view another operator shared (docs/DECISIONS.md, "Saved views")
  "saved_view.delete",
  // Devices
  "device.create",
  "device.update",
  "device.delete",
  "device.bulk_update",
  "device.accept",
  "device.reject",
  "device.reset_credentials",
  "device.preauthorize",
  "device.enroll",
  "device.attributes",
  // Product types (and their modules), device types, firmwares
  "product_type.create",
  "product_type.update",
  "product_type.delete",
  "device_type.create",
  "device_type.update",
  "device_type.delete",
  "firmware.upload",
  "firmware.delete",
  // Imports
  "treatments.import",
  // Staged rollouts (docs/REQUIREMENTS.md §13); the automatic steps are the system's, with the report that led to them
  "rollout.create",
  "rollout.start",
  "rollout.pause",
  "rollout.resume",
  "rollout.advance",
  "rollout.cancel",
  "rollout.promote",
  "rollout.retry",
  "rollout.auto_advance",
  "rollout.auto_pause",
] as const;

export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

export const ACTOR_TYPES = ["operator", "api_token", "device", "system"] as const;
export const AuditActorType = z.enum(ACTOR_TYPES);
export type AuditActorType = z.infer<typeof AuditActorType>;

/** Who did it: an operator (id, e-mail), an API token (id, name), a device (its deviceId twice), or the system. */
export const AuditActor = z.object({ type: AuditActorType, id: z.string(), name: z.string() });
export type AuditActor = z.infer<typeof AuditActor>;

/** What it was done to: `type` is the entity kind (device, product_type, device_type, firmware, operator, ...). */
export const AuditTarget = z.object({ type: z.string(), id: z.string(), name: z.string() });
export type AuditTarget = z.infer<typeof AuditTarget>;

/** Any JSON value (the details of an entry). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const AuditEntry = z.object({
  _id: Id,
  /** Its place in the chain: 1, 2, 3, ... with no gaps (entries are never deleted). */
  seq: z.number().int(),
  at: Timestamp,
  actor: AuditActor,
  action: z.string(),
  target: AuditTarget.nullable(),
  details: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  /** sha256 hex of (the previous entry's hash + this entry's canonical JSON), docs/DECISIONS.md. */
  hash: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditList = z.object({
  data: z.array(AuditEntry),
  /** How many entries match; a lower bound when `exact` is false (a filter matching very many entries). */
  total: z.number().int(),
  exact: z.boolean(),
  page: z.number().int(),
  per_page: z.number().int(),
  /**
   * The names of the firmwares, product types, modules and treatments the page's details refer to by id, as they are
   * named now (a deleted one keeps the name its own entries gave it, when they are on the page): what a history shows
   * instead of an id.
   */
  names: z.record(z.string(), z.string()).optional(),
});
export type AuditList = z.infer<typeof AuditList>;

const intParam = (min: number, max: number) =>
  z.string().regex(/^\d{1,10}$/, "must be a whole number").transform(Number).pipe(
    z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );

const text = (max: number) =>
  z.string().min(1, "must not be empty").max(max, `is at most ${max} characters`).refine(
    (s) => !hasControlChars(s),
    "must not contain control characters",
  );

/** An ISO 8601 instant; normalized to the server's form (UTC, milliseconds) so it compares as text. */
const Instant = z.string().max(40).refine((s) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s), {
  message: "must be an ISO 8601 date or time, e.g. 2026-11-22T10:00:00Z",
}).transform((s, ctx) => {
  const t = Date.parse(s);
  if (Number.isNaN(t)) {
    ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date or time, e.g. 2026-11-22T10:00:00Z" });
    return z.NEVER;
  }
  return new Date(t).toISOString();
});

/** The filters of GET audit and GET audit.csv (each one narrows; `from` inclusive, `to` exclusive). */
export const AuditFilterQuery = z.object({
  /** The actor's name exactly: an operator's e-mail, a token's name, a deviceId, "system". */
  actor: text(320).optional(),
  action: AuditAction.optional(),
  targetType: text(64).optional(),
  targetId: text(320).optional(),
  from: Instant.optional(),
  to: Instant.optional(),
});
export type AuditFilter = z.output<typeof AuditFilterQuery>;

export const AuditListQuery = AuditFilterQuery.extend({
  page: intParam(0, 1_000_000_000).default(0),
  rowsPerPage: intParam(1, 100).default(25),
});
export type AuditListQuery = z.input<typeof AuditListQuery>;

/** The columns of GET audit.csv, in order. */
export const AUDIT_CSV_COLUMNS = [
  "seq",
  "_id",
  "at",
  "actor_type",
  "actor_id",
  "actor_name",
  "action",
  "target_type",
  "target_id",
  "target_name",
  "details",
  "ip",
  "hash",
] as const;
