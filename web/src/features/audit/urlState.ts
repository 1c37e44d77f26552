import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from "../../../../shared/schemas/device.ts";
import { AUDIT_ACTIONS } from "../../../../shared/schemas/audit.ts";

/** The audit log's filters and page, as the URL query holds them (dates as YYYY-MM-DD, UTC days). */
export interface AuditUrlState {
  page: number;
  size: number;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  /** First day shown (UTC), inclusive. */
  from: string;
  /** Last day shown (UTC), inclusive. */
  until: string;
}

export const EMPTY_FILTERS = { actor: "", action: "", targetType: "", targetId: "", from: "", until: "" };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const day = (v: string | null) => (v && DAY.test(v) && !Number.isNaN(Date.parse(v)) ? v : "");
/** Printable text only (the API refuses control characters), at most `max` characters. */
const text = (v: string | null, max: number) =>
  Array.from(v ?? "").filter((ch) => ch >= " " && ch !== "\u007f").join("").slice(0, max);

/** Reads the state from the URL query; anything unreadable falls back to the default. */
export function readAuditUrl(params: URLSearchParams): AuditUrlState {
  const page = Number(params.get("page"));
  const size = Number(params.get("size"));
  const action = params.get("action") ?? "";
  return {
    page: Number.isInteger(page) && page >= 0 && page <= 1_000_000_000 ? page : 0,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    actor: text(params.get("actor"), 320),
    action: (AUDIT_ACTIONS as readonly string[]).includes(action) ? action : "",
    targetType: text(params.get("targetType"), 64),
    targetId: text(params.get("targetId"), 320),
    from: day(params.get("from")),
    until: day(params.get("until")),
  };
}

/** The URL query for a state; defaults are left out so the plain /audit stays plain. */
export function auditUrlQuery(s: AuditUrlState): string {
  const params = new URLSearchParams();
  for (const key of ["actor", "action", "targetType", "targetId", "from", "until"] as const) {
    if (s[key]) params.set(key, s[key]);
  }
  if (s.page) params.set("page", String(s.page));
  if (s.size !== DEFAULT_PAGE_SIZE) params.set("size", String(s.size));
  const qs = params.toString();
  return qs ? `?${qs}` : "";
}

/** The day after a YYYY-MM-DD day: an inclusive "until" day as the API's exclusive `to`. */
export function nextDay(d: string): string {
  const t = new Date(`${d}T00:00:00.000Z`);
  t.setUTCDate(t.getUTCDate() + 1);
  return t.toISOString().slice(0, 10);
}

/** The API's filters for a state. */
export function apiFilters(s: Omit<AuditUrlState, "page" | "size">) {
  return {
    actor: s.actor.trim() || undefined,
    action: s.action || undefined,
    targetType: s.targetType.trim() || undefined,
    targetId: s.targetId.trim() || undefined,
    from: s.from || undefined,
    to: s.until ? nextDay(s.until) : undefined,
  };
}
