import { AuditFilterQuery, AuditList, AuditListQuery } from "../schemas/audit.ts";
import { binary, errors, json, noBody, route } from "./route.ts";

export const auditRoutes = {
  listAudit: route({
    name: "listAudit",
    method: "GET",
    path: "/audit",
    auth: "operator",
    role: "operator",
    summary:
      "One page of the audit trail, newest first, optionally filtered by actor (an e-mail, a token's name, a deviceId), action, target type " +
      "and id, and time (from inclusive, to exclusive). Admins and operators.",
    query: AuditListQuery,
    body: noBody,
    answers: { 200: json(AuditList), ...errors(400, 401, 403) },
  }),
  auditCsv: route({
    name: "auditCsv",
    method: "GET",
    path: "/audit.csv",
    auth: "operator",
    role: "operator",
    summary:
      "The audit trail (with the same filters as GET audit) as CSV, newest first, streamed. Admins and operators.",
    query: AuditFilterQuery,
    body: noBody,
    answers: { 200: binary("text/csv"), ...errors(400, 401, 403) },
  }),
};
