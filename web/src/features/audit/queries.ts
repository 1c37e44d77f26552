import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import type { AuditFilters, AuditQuery } from "../../../../shared/client.ts";
import type { AuditEntry } from "../../../../shared/schemas/audit.ts";
import { api } from "../../lib/api.ts";

export const auditKeys = {
  all: ["audit"] as const,
  list: (q: AuditQuery) => [...auditKeys.all, "list", q] as const,
};

/** One page of the audit trail; the previous page stays visible while the next loads; always fresh on opening. */
export const auditQuery = (q: AuditQuery) =>
  queryOptions({
    queryKey: auditKeys.list(q),
    queryFn: () => api.listAudit(q),
    placeholderData: keepPreviousData,
    refetchOnMount: "always",
  });

/** Downloads the CSV of the trail with these filters (the browser saves it as audit-<time>.csv). */
export async function downloadAuditCsv(filters: AuditFilters): Promise<void> {
  const res = await api.auditCsv(filters);
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "audit.csv";
  const url = URL.createObjectURL(blob);
  try {
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** Who did it, in words: an operator's e-mail, else the kind and the name. */
export function actorText(e: AuditEntry): string {
  switch (e.actor.type) {
    case "operator":
      return e.actor.name || "(unknown operator)";
    case "api_token":
      return `API token ${e.actor.name}`;
    case "device":
      return `Device ${e.actor.name}`;
    default:
      return "System";
  }
}

const TARGET_TYPES: Record<string, string> = {
  device: "Device",
  operator: "Operator",
  product_type: "Product type",
  device_type: "Device type",
  firmware: "Firmware",
  treatments: "Treatment import",
  api_token: "API token",
  rollout: "Rollout",
  saved_view: "Saved view",
};

/** What it was done to, in words. */
export function targetText(e: AuditEntry): string {
  if (!e.target) return "-";
  return `${TARGET_TYPES[e.target.type] ?? e.target.type} ${e.target.name || e.target.id}`;
}

/** The kinds of target an entry can have, for the filter. */
export const TARGET_TYPE_OPTIONS = Object.entries(TARGET_TYPES).map(([value, label]) => ({ value, label }));
