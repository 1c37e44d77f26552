/**
 * An audit entry in words (docs/REQUIREMENTS.md §17: history reads as the operator acted): the action's name, and its details as
 * lines of names and values ("Custom firmware: none → fw-2.5.0.xz", "Modules: Pelvic floor added"), ids replaced by
 * the names the page's answer carries (`names`). Never an id, never a cut-off JSON; the CSV keeps the raw fields.
 */
import type { AuditEntry } from "../../../../shared/schemas/audit.ts";
import { formatBytes } from "../../../../shared/format_bytes.ts";

export type Names = Record<string, string>;

const ACTIONS: Record<string, string> = {
  "auth.sign_in": "Signed in",
  "auth.sign_in_failed": "Sign-in failed",
  "auth.password_change": "Changed own password",
  "operator.create": "Operator added",
  "operator.update": "Operator changed",
  "operator.reset_password": "Operator's password reset",
  "api_token.create": "API token created",
  "api_token.revoke": "API token revoked",
  "saved_view.delete": "Saved view deleted",
  "device.create": "Device registered",
  "device.update": "Device changed",
  "device.delete": "Device deleted",
  "device.bulk_update": "Devices changed together",
  "device.accept": "Device accepted",
  "device.reject": "Device rejected",
  "device.reset_credentials": "Device credentials reset",
  "device.preauthorize": "Device pre-authorized",
  "device.enroll": "Device enrolment",
  "device.attributes": "Device attributes reported",
  "product_type.create": "Product type created",
  "product_type.update": "Product type changed",
  "product_type.delete": "Product type deleted",
  "device_type.create": "Device type created",
  "device_type.update": "Device type changed",
  "device_type.delete": "Device type deleted",
  "firmware.upload": "Firmware uploaded",
  "firmware.delete": "Firmware deleted",
  "treatments.import": "Treatments imported",
  "rollout.create": "Rollout created",
  "rollout.start": "Rollout started",
  "rollout.pause": "Rollout paused",
  "rollout.resume": "Rollout resumed",
  "rollout.advance": "Rollout advanced",
  "rollout.cancel": "Rollout cancelled",
  "rollout.promote": "Rollout promoted",
  "rollout.auto_advance": "Rollout advanced automatically",
  "rollout.auto_pause": "Rollout paused automatically",
};

/** The action in words ("Device changed"); an action this console does not know, as recorded. */
export const actionText = (action: string): string => ACTIONS[action] ?? action;

/** What an id-valued key names, for the words of an id no longer known. */
const ID_KINDS: Record<string, string> = {
  firmware: "firmware",
  defaultFirmware: "firmware",
  firmwareId: "firmware",
  productTypeId: "product type",
  moduleIds: "module",
  additionalTreatmentIds: "treatment",
  treatmentIds: "treatment",
};

const LABELS: Record<string, string> = {
  productTypeId: "Product type",
  firmware: "Custom firmware",
  defaultFirmware: "Default firmware",
  firmwareId: "Firmware",
  moduleIds: "Modules",
  additionalTreatmentIds: "Additional treatments",
  treatmentIds: "Treatments",
  email: "E-mail",
  sha256: "SHA-256",
  versionInfo: "Version",
  app: "App",
  os: "OS",
  stagePercent: "Stage share",
  hadToken: "Had a token",
  expiresAt: "Expires",
  isDefault: "Default",
  devices: "Devices",
};

/** A key in words: its label, else the camelCase or snake_case split ("failureThreshold" → "Failure threshold"). */
export function labelOf(key: string): string {
  if (LABELS[key]) return LABELS[key];
  const words = key.replace(/_/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const REASONS: Record<string, string> = {
  unknown_email: "unknown e-mail address",
  wrong_password: "wrong password",
  disabled: "account disabled",
};

/** An id as the console makes them (shared/ids.ts): 32 hex digits. */
const ID = /^[0-9a-f]{32}$/;

/**
 * One id as its name; an id the console no longer knows as "a deleted <kind>"; a value under such a key that is not an
 * id (a saved view's `firmware: "custom"`) as it is.
 */
function nameOf(id: string, key: string, names: Names): string {
  return names[id] ?? (ID.test(id) ? `a deleted ${ID_KINDS[key] ?? "item"}` : id);
}

/** A value in words: none, yes/no, names for ids, bytes for sizes, nested values as "Label value" pairs. */
export function valueText(key: string, v: unknown, names: Names): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (ID_KINDS[key]) {
    if (typeof v === "string") return nameOf(v, key, names);
    if (Array.isArray(v)) return v.length ? v.map((id) => nameOf(String(id), key, names)).join(", ") : "none";
  }
  if (key === "size" && typeof v === "number") return formatBytes(v);
  if (key === "reason" && typeof v === "string") return REASONS[v] ?? v;
  if (typeof v === "string") return v === "" ? "(empty)" : v;
  if (typeof v === "number") return String(v);
  if (Array.isArray(v)) return v.length ? v.map((x) => valueText(key, x, names)).join(", ") : "none";
  const pairs = Object.entries(v as Record<string, unknown>);
  if (!pairs.length) return "none";
  return pairs.map(([k, x]) => `${labelOf(k)} ${valueText(k, x, names)}`).join(", ");
}

/** An id list's change: "Pelvic floor added; Balance removed" (by name), or its value when nothing was before. */
function listChange(key: string, before: unknown, after: unknown, names: Names): string {
  const was = Array.isArray(before) ? before.map(String) : [];
  const now = Array.isArray(after) ? after.map(String) : [];
  const added = now.filter((id) => !was.includes(id)).map((id) => valueText(key, id, names));
  const removed = was.filter((id) => !now.includes(id)).map((id) => valueText(key, id, names));
  const parts = [];
  if (added.length) parts.push(`${added.join(", ")} added`);
  if (removed.length) parts.push(`${removed.join(", ")} removed`);
  return parts.length ? parts.join("; ") : "unchanged";
}

/** A product type's modules before and after, by id where the change names it, else by name. */
function moduleChanges(before: unknown, after: unknown): string {
  const was = Array.isArray(before) ? before as { _id?: string; name: string }[] : [];
  const now = Array.isArray(after) ? after as { _id?: string; name: string }[] : [];
  const parts: string[] = [];
  const added = now.filter((m) => !was.some((w) => (m._id && w._id === m._id) || w.name === m.name));
  const removed = was.filter((w) => !now.some((m) => (m._id && w._id === m._id) || w.name === m.name));
  const renamed = now.flatMap((m) => {
    const w = m._id ? was.find((x) => x._id === m._id) : undefined;
    return w && w.name !== m.name ? [`${w.name} renamed ${m.name}`] : [];
  });
  if (added.length) parts.push(`${added.map((m) => m.name).join(", ")} added`);
  if (removed.length) parts.push(`${removed.map((m) => m.name).join(", ")} removed`);
  parts.push(...renamed);
  return parts.length ? parts.join("; ") : "unchanged";
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The entry's details as lines in words. A change (`changes` and `before`, or fields beside `before`) reads
 * "Label: before → after"; an id list "Label: X added"; anything else "Label: value".
 */
export function detailLines(e: AuditEntry, names: Names = {}): string[] {
  const d = e.details;
  // Attribute names are the device's own words: shown as sent, not as labels.
  if (e.action === "device.attributes" && isObject(d.changes)) {
    const was = isObject(d.before) ? d.before : {};
    return Object.entries(d.changes).map(([name, now]) =>
      `${name}: ${valueText("", was[name], names)} → ${valueText("", now, names)}`
    );
  }
  const lines: string[] = [];
  const before = isObject(d.before) ? d.before : null;
  const changes = isObject(d.changes) ? d.changes : before
    ? Object.fromEntries(
      Object.entries(d).filter(([k]) => k !== "before"),
    )
    : null;
  if (e.action === "device.bulk_update" && typeof d.devices === "number") {
    lines.push(`${d.devices} device${d.devices === 1 ? "" : "s"}`);
  }
  if (changes) {
    // A list cleared by the change (a new product type clears the modules) is in `before` only; other fields there are
    // context (an operator's role when only `disabled` changed).
    const cleared = Object.keys(before ?? {}).filter((k) =>
      !(k in changes) && Array.isArray(before?.[k]) && ID_KINDS[k]
    );
    for (const key of [...Object.keys(changes), ...cleared]) {
      const after = key in changes ? changes[key] : [];
      if (key === "theme" || key === "_id") continue; // the colours, and the target's own id: in the full details
      if (key === "modules" && Array.isArray(after)) {
        const change = before ? moduleChanges(before.modules, after) : after.map((m) => m?.name).join(", ") || "none";
        if (change !== "unchanged") lines.push(`Modules: ${change}`);
        continue;
      }
      if (before && key in before) {
        if (Array.isArray(after) && ID_KINDS[key]) {
          const change = listChange(key, before[key], after, names);
          if (change !== "unchanged") lines.push(`${labelOf(key)}: ${change}`);
        } else {
          const was = valueText(key, before[key], names), now = valueText(key, after, names);
          if (was !== now) lines.push(`${labelOf(key)}: ${was} → ${now}`);
        }
      } else lines.push(`${labelOf(key)}: ${before ? "→ " : ""}${valueText(key, after, names)}`);
    }
  }
  for (const [key, v] of Object.entries(d)) {
    if (key === "changes" || key === "before" || (changes && !isObject(d.changes) && key in changes)) continue;
    if (key === "devices" && e.action === "device.bulk_update") continue;
    if ((key === "escaped" && v === true) || key === "_id") continue;
    lines.push(`${labelOf(key)}: ${valueText(key, v, names)}${key === "email" && d.escaped ? " (escaped)" : ""}`);
  }
  return lines;
}

/** The details in words on one line ("-" when there are none). */
export const detailsSummary = (e: AuditEntry, names: Names = {}): string => detailLines(e, names).join(" · ") || "-";
